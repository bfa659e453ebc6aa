import { Type } from 'typebox';
import { Money, Uuid } from '../../http/schemas.ts';

export const PaymentPlansQuery = Type.Object(
  {
    checkout_page_id: Type.Optional(
      Uuid({ description: 'plans enabled for that checkout page; `products` is required' }),
    ),
    charge_id: Type.Optional(
      Uuid({ description: 'order UID of a charge; its total plus fine and late interest when overdue' }),
    ),
    cart_id: Type.Optional(Uuid({ description: 'cart UID; the cart total' })),
    cart_page_id: Type.Optional(
      Uuid({ description: 'plans of a cart page before a cart exists; with `amount` or `products`' }),
    ),
    amount: Type.Optional(Money({ description: 'major units; replaces the context total; does not waive `products`' })),
    coupon: Type.Optional(
      Type.String({ maxLength: 64, description: 'applied when the total is computed from products' }),
    ),
    products: Type.Optional(
      Type.Record(Type.String({ pattern: '^[1-9][0-9]{0,14}$' }), Type.Integer({ minimum: 1, maximum: 100_000 }), {
        additionalProperties: false,
        maxProperties: 100,
        description: 'product id → quantity, as `products[7]=2&products[12]=1`',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PaymentPlanOptionSchema = Type.Object({
  id: Type.String({ description: '`{payment_plan_id}-{installments}`; sent verbatim as `payment_plan_id`' }),
  name: Type.String({ description: 'label shown to the customer (pt-BR)' }),
  number: Type.Integer({ description: 'installment count; 1 is a lump sum' }),
  value: Type.Number({
    description: 'per-installment amount (the first, largest one); interest, fixed fee and coupon included',
  }),
  fine: Type.Number(),
  fine_tax: Type.Number(),
  fine_type: Type.String({ description: '`fixed` or `percentage`' }),
  late_interest: Type.Number(),
  late_interest_tax: Type.Number({ description: 'percent per month, pro rata per day' }),
  payment_method: Type.String({ description: '`credit_card`, `bank_slip` or `pix`' }),
  fixed: Type.Number({ description: 'fixed fee already included in value; 0 without a tax row' }),
  percentage: Type.Number({ description: 'interest in percent already included in value; 0 without a tax row' }),
});

const Options = Type.Array(PaymentPlanOptionSchema);

export const PaymentPlanOptionsSchema = Type.Object(
  { credit_card: Type.Optional(Options), bank_slip: Type.Optional(Options), pix: Type.Optional(Options) },
  { description: 'only the payment methods configured for the context are present' },
);

export const ErrorsBody = Type.Object({ errors: Type.Array(Type.String()) });
