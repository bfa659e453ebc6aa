import { Type } from 'typebox';
import { KeyValue } from '../../http/schemas.ts';

export const UpsellBody = Type.Object(
  {
    offer: Type.String({ minLength: 1, maxLength: 2000, description: 'the `offer` token of the PaymentResult' }),
    meta: Type.Optional(
      KeyValue(Type.Unknown(), { maxProperties: 50, description: 'free key-value, stored on the upsell order' }),
    ),
  },
  { additionalProperties: false },
);

export const UpsellResultSchema = Type.Object(
  {
    order_status: Type.String({ description: 'the upsell order status; `refused` when the saved card was declined' }),
    payments: Type.Array(Type.String(), { description: 'gateway-side payment ids' }),
    bank_slip_url: Type.Optional(
      Type.String({ format: 'uri', description: 'only when the original order was paid by bank slip' }),
    ),
    pix_qr_code: Type.Optional(
      Type.String({ description: 'base64 PNG; only when the original order was paid by pix' }),
    ),
    pix_qr_code_url: Type.Optional(Type.String({ format: 'uri' })),
    pix_expires_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);
