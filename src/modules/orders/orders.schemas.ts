import { Type } from 'typebox';
import { CalendarDate, Instant } from '../../http/date-range.ts';
import { HttpUrl, IntegerId, KeyValue, Money, Uuid } from '../../http/schemas.ts';
import { AddressFields, CustomerField } from '../customers/index.ts';
import { ORDER_STATUSES } from './order-status.ts';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;
export const PERIOD_FIELDS = ['created_at', 'paid_at', 'date', 'due_date', 'scheduled_at'] as const;
export type PeriodField = (typeof PERIOD_FIELDS)[number];

const OrderStatusSchema = Type.Union(ORDER_STATUSES.map((status) => Type.Literal(status)));

export const OrderListQuery = Type.Object(
  {
    initial_date: Type.Optional(
      CalendarDate({
        description: 'YYYY-MM-DD, inclusive; in the company’s time zone for created_at, paid_at and scheduled_at',
      }),
    ),
    final_date: Type.Optional(CalendarDate({ description: 'YYYY-MM-DD, inclusive' })),
    period_date_filter: Type.Optional(
      Type.Union(
        PERIOD_FIELDS.map((field) => Type.Literal(field)),
        { default: 'created_at', description: 'the field the date range applies to' },
      ),
    ),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'customer name or email (contains), order id or uid (exact); empty or blank is no filter',
      }),
    ),
    cart_page_uuids: Type.Optional(Type.Array(Uuid(), { maxItems: 100 })),
    company_ids: Type.Optional(Type.Array(IntegerId(), { maxItems: 100 })),
    status: Type.Optional(Type.Array(OrderStatusSchema, { maxItems: 8 })),
    meta: Type.Optional(
      Type.Array(Type.String({ pattern: '^[^:]+:', maxLength: 500 }), {
        maxItems: 20,
        description: '`meta[]=key:value` (split at the first colon); every pair must be in the order’s meta',
      }),
    ),
  },
  { additionalProperties: false },
);

export const OrderIdParams = Type.Object({ id: IntegerId() }, { additionalProperties: false });

const JsonObject = (description: string) => KeyValue(Type.Unknown(), { description });

export const OrderCustomerBody = Type.Object(
  {
    email: CustomerField.email,
    identification: Type.Optional(CustomerField.identification),
    foreign: Type.Optional(Type.Boolean({ description: 'relaxes identification validation' })),
    name: Type.Optional(CustomerField.name),
    phone: Type.Optional(CustomerField.phone),
    ...AddressFields,
    retention: Type.Optional(Type.Boolean({ description: 'apply retention pricing (as calculate_retention)' })),
    meta: Type.Optional(KeyValue(Type.String({ maxLength: 1000 }), { description: 'values must be strings' })),
  },
  { additionalProperties: false },
);

export const PAYMENT_METHODS = ['credit_card', 'bank_slip', 'pix'] as const;

export const AttachedPaymentBody = Type.Object(
  {
    gateway: Type.String({
      minLength: 1,
      maxLength: 60,
      description: 'gateway_a, gateway_b, gateway_c or bank; any other name is stored as external',
    }),
    gateway_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    payment_plan_id: Type.Optional(IntegerId({ description: 'one of the account’s payment plans; gives the method' })),
    amount: Money({ exclusiveMinimum: 0, description: 'major units' }),
    type: Type.Optional(
      Type.Union(
        PAYMENT_METHODS.map((m) => Type.Literal(m)),
        { description: 'the method; required without payment_plan_id' },
      ),
    ),
    installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 24, default: 1 })),
    paid_at: Type.Optional(Instant({ description: 'default: now' })),
  },
  { additionalProperties: false },
);

export const OrderCreateBody = Type.Object(
  {
    customer: OrderCustomerBody,
    date: Type.Optional(
      CalendarDate({ description: 'YYYY-MM-DD; default today in the company’s time zone; also the due date' }),
    ),
    coupon: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    main_product_id: Type.Optional(
      IntegerId({ description: 'validated with the coupon; the only item when items is empty' }),
    ),
    scheduled_at: Type.Optional(Instant()),
    observation: Type.Optional(Type.String({ maxLength: 5000 })),
    skip_content_release: Type.Optional(Type.Boolean()),
    calculate_retention: Type.Optional(Type.Boolean()),
    meta: Type.Optional(JsonObject('free key-value pairs')),
    crm_info: Type.Optional(
      Type.Object(
        {
          create_deal: Type.Optional(Type.Boolean()),
          list_ids: Type.Optional(Type.String({ maxLength: 1000 })),
          url: Type.Optional(HttpUrl()),
          tags: Type.Optional(Type.String({ maxLength: 1000 })),
        },
        { additionalProperties: false },
      ),
    ),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {
            product_id: IntegerId(),
            quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: 100,
          description:
            'at least one item (or main_product_id alone); the order’s total must be positive; each line ' +
            '(quantity × the product’s value) and the order’s total may amount to at most 99999999.99',
        },
      ),
    ),
    payments: Type.Optional(Type.Array(AttachedPaymentBody, { maxItems: 10 })),
  },
  { additionalProperties: false },
);
