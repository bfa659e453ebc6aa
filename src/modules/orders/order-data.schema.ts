import { Type } from 'typebox';
import { AddressSchema } from '../customers/customers.schemas.ts';

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
    due_date: Type.Optional(Type.String({ format: 'date', description: 'present when the order is a charge' })),
    coupon_code: Type.Optional(Type.String()),
    deal_id: Type.Optional(Type.Integer()),
    observation: Type.Optional(Type.String()),
    seller_id: Type.Optional(Type.Integer()),
    status: Type.String(),
    meta: AnyObject(),
    utms: AnyObject('utm_source, utm_medium, utm_campaign and similar'),
    discount: Type.Number(),
    total: Type.Number({ description: 'after discounts, freight included' }),
    created_at: DateTime(),
    date: Type.String({ format: 'date' }),
    scheduled_at: Type.Optional(DateTime()),
    charge_page: Type.Optional(PageRef('the cart page the order came from; present when set')),
    checkout_page: Type.Optional(PageRef('the checkout page the order came from; present when set')),
    customer: Type.Optional(
      Type.Object({
        email: Type.String(),
        name: Type.String(),
        identification: Type.Optional(Type.String()),
        phone: Type.Optional(Type.String()),
        utms: AnyObject(),
        meta: AnyObject(),
        address: AddressSchema,
      }),
    ),
    seller: Type.Optional(Type.Object({ name: Type.String() })),
    items: Type.Array(
      Type.Object({
        product_id: Type.Optional(Type.Integer()),
        product_name: Type.String(),
        unit_name: Type.String(),
        interval: Type.Optional(Type.String({ description: 'day, week, month or year; subscriptions only' })),
        cycle: Type.Optional(Type.Integer({ description: 'intervals per billing period; subscriptions only' })),
        quantity: Type.Integer(),
        subscription: Type.Boolean(),
        total: Type.Number(),
        value: Type.Number(),
      }),
    ),
    payments: Type.Array(
      Type.Object({
        gateway_id: Type.Optional(Type.String()),
        installments: Type.Integer(),
        status: Type.String(),
        type: Type.String({ description: 'credit_card, bank_slip or pix' }),
        amount: Type.Number(),
        company: Type.String({ description: 'company name' }),
        created_at: DateTime(),
        installment_value: Type.Number(),
        interest: Type.Number(),
        paid_at: Type.Optional(DateTime()),
        cancelled_at: Type.Optional(DateTime()),
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
        number: Type.Optional(Type.String()),
        series: Type.Optional(Type.String()),
        status: Type.String(),
        type: Type.String(),
        value: Type.Number(),
      }),
    ),
    freight: Type.Optional(
      Type.Object(
        {
          brand: Type.Optional(Type.String()),
          charge: Type.Number({ description: 'the freight amount of the order' }),
          type: Type.Optional(Type.String()),
          quantity: Type.Integer({ description: 'volumes; 1 unless recorded' }),
          total: Type.Number({
            description: 'the freight total (the order’s freight amount unless the carrier quote recorded another)',
          }),
          carrier: Type.Optional(Type.String()),
        },
        { description: 'present when the order has freight' },
      ),
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
