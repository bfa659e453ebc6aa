import { Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';
import { AddressSchema } from '../customers/index.ts';

const AnyObject = (description?: string) =>
  Type.Object({}, { additionalProperties: true, ...(description ? { description } : {}) });
const DateTime = () => Type.String({ format: 'date-time' });
const PageRef = (description: string) =>
  Type.Object(
    {
      id: Type.Integer({ description: 'the page’s stable integer id (its identifier elsewhere is a UUID)' }),
      name: Type.String(),
    },
    { description },
  );

export const OrderDataSchema = Type.Object(
  {
    id: Type.Integer(),
    uid: Type.String({ format: 'uuid' }),
    link: Type.String({
      format: 'uri',
      description: 'the hosted page of the order: its charge, cart or checkout page (docs/orders.md)',
    }),
    due_date: Nullable(Type.String({ format: 'date' }), 'set when the order is a charge, else null'),
    coupon_code: Nullable(Type.String()),
    deal_id: Nullable(Type.Integer()),
    observation: Nullable(Type.String()),
    seller_id: Nullable(Type.Integer()),
    status: Type.String(),
    meta: AnyObject(),
    utms: AnyObject('utm_source, utm_medium, utm_campaign and similar'),
    discount: Type.Number(),
    total: Type.Number({ description: 'after discounts, freight included' }),
    created_at: DateTime(),
    date: Type.String({ format: 'date' }),
    scheduled_at: Nullable(DateTime()),
    charge_page: Nullable(PageRef('the cart page the order came from'), 'the cart page the order came from, else null'),
    checkout_page: Nullable(
      PageRef('the checkout page the order came from'),
      'the checkout page the order came from, else null',
    ),
    customer: Nullable(
      Type.Object({
        email: Type.String(),
        name: Type.String(),
        identification: Nullable(Type.String()),
        phone: Nullable(Type.String()),
        utms: AnyObject(),
        meta: AnyObject(),
        address: AddressSchema,
      }),
    ),
    seller: Nullable(Type.Object({ name: Type.String() })),
    items: Type.Array(
      Type.Object({
        product_id: Nullable(Type.Integer(), 'null when the product was not recorded'),
        product_name: Type.String(),
        unit_name: Type.String(),
        interval: Nullable(Type.String(), 'day, week, month or year; null unless a subscription'),
        cycle: Nullable(Type.Integer(), 'intervals per billing period; null unless a subscription'),
        quantity: Type.Integer(),
        subscription: Type.Boolean(),
        total: Type.Number(),
        value: Type.Number(),
      }),
    ),
    payments: Type.Array(
      Type.Object({
        gateway_id: Nullable(Type.String()),
        installments: Type.Integer(),
        status: Type.String(),
        type: Type.String({ description: 'credit_card, bank_slip or pix' }),
        amount: Type.Number(),
        company: Type.String({ description: 'company name' }),
        created_at: DateTime(),
        installment_value: Type.Number(),
        interest: Type.Number(),
        paid_at: Nullable(DateTime()),
        cancelled_at: Nullable(DateTime()),
        observation: Type.Optional(
          Type.String({
            description: 'the note a charge attempt (POST /charges/{id}/pay) sent; present when it sent one',
          }),
        ),
        meta: Type.Optional(
          AnyObject('the meta a charge attempt (POST /charges/{id}/pay) sent; present when it sent one'),
        ),
      }),
    ),
    invoices: Type.Array(
      Type.Object({
        number: Nullable(Type.String()),
        series: Nullable(Type.String()),
        status: Type.String(),
        type: Type.String(),
        value: Type.Number(),
      }),
    ),
    freight: Nullable(
      Type.Object({
        brand: Nullable(Type.String()),
        charge: Type.Number({ description: 'the freight amount of the order' }),
        type: Nullable(Type.String()),
        quantity: Type.Integer({ description: 'volumes; 1 unless recorded' }),
        total: Type.Number({
          description: 'the freight total (the order’s freight amount unless the carrier quote recorded another)',
        }),
        carrier: Nullable(Type.String()),
      }),
      'null when the order has no freight',
    ),
  },
  { description: 'an order with its customer, items, payments and invoices' },
);

export const OrdersIndexSchema = Type.Object({
  meta: Type.Object({
    current_page: Type.Integer(),
    total_pages: Type.Integer(),
    total_count: Type.Integer(),
    per_page: Type.Integer(),
  }),
  data: Type.Array(OrderDataSchema),
});
