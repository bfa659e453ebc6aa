import { Type } from 'typebox';
import { Uuid } from '../../../http/schemas.ts';

export const PaymentStatusSchema = Type.Object({
  gateway_id: Type.String({
    description: "the gateway's payment id; the payment's uid while the gateway has not assigned one",
  }),
  status: Type.Union([
    Type.Literal('paid'),
    Type.Literal('waiting_payment'),
    Type.Literal('failed'),
    Type.Literal('cancelled'),
  ]),
});

export const LastPaymentSchema = Type.Object({
  gateway_id: Type.String({
    description: "the gateway's payment id; the payment's uid while the gateway has not assigned one",
  }),
  amount: Type.Number(),
  interest: Type.Number({
    description:
      'late interest included in the amount (not the fine, not card interest or fees); 0 when paid on time or in advance',
  }),
  paid_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  status: Type.Union([
    Type.Literal('waiting_payment'),
    Type.Literal('paid'),
    Type.Literal('failed'),
    Type.Literal('cancelled'),
    Type.Literal('pending'),
  ]),
});

/** How many payments a list without `ids` gives: the most recent ones. */
export const RECENT_PAYMENTS_LIMIT = 100;

export const PaymentIdsQuery = Type.Object(
  {
    ids: Type.Optional(
      Type.Array(Type.String({ maxLength: 255 }), {
        maxItems: 100,
        description: `as ids[]=…; each a gateway id, an internal payment id or an internal payment uid. Omitted: the ${RECENT_PAYMENTS_LIMIT} most recent payments, newest first`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const UidParams = Type.Object({ id: Uuid() }, { additionalProperties: false });

export const NoContent = Type.Null({ description: 'no payments (or no attempt yet); no body' });
