import { Type } from 'typebox';
import { IntegerId, KeyValue, Money, Nullable, Uuid } from '../../../http/schemas.ts';
import { Instant } from '../../../http/date-range.ts';

const OptionId = () =>
  Type.String({ minLength: 3, maxLength: 40, description: '`{plan_id}-{installments}`, the payment plan option id' });
const Token = () => Type.String({ minLength: 1, maxLength: 2048 });
const Meta = () => KeyValue(Type.Unknown(), { maxProperties: 50 });

/** The card fields every pay body shares (two sets: card 0 and card 1 of a split). */
const cardFields = {
  payment_plan_id: OptionId(),
  confirmation_token_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'gateway_b card payments: the client-side confirmation token',
    }),
  ),
  credit_card_0_token: Type.Optional(Token()),
  credit_card_0_card_id: Type.Optional(Uuid({ description: 'a saved card of this customer' })),
  credit_card_0_payment_plan: Type.Optional(OptionId()),
  credit_card_0_amount: Type.Optional(Money({ exclusiveMinimum: 0 })),
  credit_card_1_token: Type.Optional(Token()),
  credit_card_1_card_id: Type.Optional(Uuid({ description: 'a saved card of this customer' })),
  credit_card_1_payment_plan: Type.Optional(OptionId()),
  credit_card_1_amount: Type.Optional(Money({ exclusiveMinimum: 0 })),
};

/** An extension of the three pay bodies: what the buyer was shown, so that nothing else is charged. */
const shownTotalField = {
  expected_total: Type.Optional(
    Money({
      exclusiveMinimum: 0,
      description:
        'extension: the total the buyer was shown, in the order currency (every card, installment interest, fine and late interest included); when the payment would charge another total, 409 `conflict` naming this field, and nothing is created',
    }),
  ),
};

const Address = Type.Object(
  {
    city: Type.Optional(Type.String({ maxLength: 120 })),
    neighborhood: Type.Optional(Type.String({ maxLength: 120 })),
    number: Type.Optional(Type.String({ maxLength: 30 })),
    state: Type.Optional(Type.String({ maxLength: 30 })),
    street: Type.Optional(Type.String({ maxLength: 200 })),
    zipcode: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: false },
);

/** The buyer's identity, asked by the page when the method needs it (always for a boleto); updates the customer. */
const identityFields = {
  customer_name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'the payer’s full name; required for bank_slip' }),
  ),
  customer_identification: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 14,
      description:
        'the payer’s CPF (11 digits) or CNPJ (14 characters, letters allowed before the check digits), checked as POST /customers checks `identification` (`.`, `-`, `/` and spaces stripped); required for bank_slip unless the customer has one',
    }),
  ),
};

const Email = () => Type.String({ format: 'email', maxLength: 254 });
const Phone = () => Type.String({ pattern: '^[0-9]{1,11}$', description: 'digits only, with area code' });
const ScheduledAt = () =>
  Instant({ description: 'an appointment slot (ISO 8601); requires require_scheduling on the page' });

export const CheckoutPayBody = Type.Object(
  {
    ...cardFields,
    ...shownTotalField,
    checkout_page_id: Uuid(),
    customer_id: Type.Optional(IntegerId()),
    customer_email: Type.Optional(Email()),
    customer_phone: Type.Optional(Phone()),
    ...identityFields,
    customer_address: Type.Optional(Address),
    main_product_id: Type.Optional(IntegerId()),
    products: Type.Optional(
      Type.Array(
        Type.Object(
          { id: IntegerId(), quantity: Type.Integer({ minimum: 1, maximum: 10_000 }) },
          { additionalProperties: false },
        ),
        { maxItems: 100 },
      ),
    ),
    coupon: Type.Optional(Type.String({ maxLength: 64 })),
    gateway: Type.Optional(Type.Union([Type.Literal('gateway_a'), Type.Literal('gateway_b')])),
    tags: Type.Optional(Type.String({ maxLength: 500 })),
    scheduled_at: Type.Optional(ScheduledAt()),
    observation: Type.Optional(Type.String({ maxLength: 2000 })),
    meta: Type.Optional(Meta()),
  },
  { additionalProperties: false },
);

const AnyGateway = () => Type.Union([Type.Literal('gateway_a'), Type.Literal('gateway_b'), Type.Literal('gateway_c')]);

export const CartPayBody = Type.Object(
  {
    ...cardFields,
    ...shownTotalField,
    coupon: Type.Optional(Type.String({ maxLength: 64 })),
    customer_id: Type.Optional(
      Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'an existing customer id, as text' }),
    ),
    customer_email: Type.Optional(Email()),
    customer_phone: Type.Optional(Phone()),
    ...identityFields,
    gateway: Type.Optional(AnyGateway()),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
    scheduled_at: Type.Optional(ScheduledAt()),
    observation: Type.Optional(Type.String({ maxLength: 2000 })),
    meta: Type.Optional(Meta()),
  },
  { additionalProperties: false },
);

export const ChargePayBody = Type.Object(
  {
    ...cardFields,
    ...shownTotalField,
    ...identityFields,
    observation: Type.Optional(Type.String({ maxLength: 2000 })),
    meta: Type.Optional(Meta()),
  },
  { additionalProperties: false },
);

const methodFields = {
  bank_slip_url: Type.Optional(Type.String({ format: 'uri', description: 'only for bank_slip' })),
  pix_qr_code: Type.Optional(Type.String({ description: 'only for pix: base64 PNG of the BR Code' })),
  pix_qr_code_url: Type.Optional(Type.String({ format: 'uri', description: 'only for pix' })),
  pix_expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'only for pix' })),
};

export const PaymentResultSchema = Type.Object({
  order_status: Type.String(),
  payments: Type.Array(Type.String(), {
    description: 'gateway-side payment ids (the payment uid while the gateway has not numbered it)',
  }),
  ...methodFields,
  redirect_url: Type.Optional(Type.String({ format: 'uri' })),
  offer: Type.Optional(
    Type.String({
      description: 'signed single-use upsell token; only after a successful payment on a page with an upsell',
    }),
  ),
  is_subscription: Type.Boolean(),
});

export const CartPaymentSchema = Type.Object({
  id: Type.String({ description: 'the payment uid' }),
  gateway_id: Type.String(),
  status: Type.String(),
  method: Type.String(),
  amount: Type.Number(),
  installments: Type.Integer(),
});

export const CartPayResultSchema = Type.Object({
  order_status: Type.String(),
  payments: Type.Array(CartPaymentSchema),
  ...methodFields,
  redirect_url: Nullable(Type.String({ format: 'uri' }), 'the cart page’s redirect after payment; null when none'),
});

export const ChargePayResultSchema = Type.Object({
  status: Type.Optional(Type.String({ description: 'card payments: the payment status' })),
  ...methodFields,
  redirect_url: Type.String({ format: 'uri', description: 'the confirmation page' }),
});

export const UidParams = Type.Object({ id: Uuid() }, { additionalProperties: false });
