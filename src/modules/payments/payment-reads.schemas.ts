import { Type } from 'typebox';
import { Uuid } from '../../http/schemas.ts';

export const PaymentStatusSchema = Type.Object({
  gateway_id: Type.String({ description: "the gateway's payment id; the payment's uid while the gateway has not assigned one" }),
  status: Type.Union([Type.Literal('paid'), Type.Literal('waiting_payment'), Type.Literal('failed'), Type.Literal('cancelled')]),
});

export const LastPaymentSchema = Type.Object({
  gateway_id: Type.String({ description: "the gateway's payment id; the payment's uid while the gateway has not assigned one" }),
  amount: Type.Number(),
  interest: Type.Number({ description: 'late interest included in the amount; 0 when paid on time' }),
  paid_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  status: Type.Union([Type.Literal('waiting_payment'), Type.Literal('paid'), Type.Literal('failed'), Type.Literal('cancelled'), Type.Literal('pending')]),
});

export const PaymentIdsQuery = Type.Object(
  {
    ids: Type.Optional(
      Type.Array(Type.String({ maxLength: 255 }), {
        maxItems: 100,
        description: 'as ids[]=…; each a gateway id, an internal payment id or an internal payment uid. None: 204',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UidParams = Type.Object({ id: Uuid() }, { additionalProperties: false });

export const NoContent = Type.Null({ description: 'no payments (or no attempt yet); no body' });
