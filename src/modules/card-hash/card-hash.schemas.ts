import { Type } from 'typebox';
import { Uuid } from '../../http/schemas.ts';

export const CheckoutPageParams = Type.Object(
  { id: Uuid({ description: 'checkout page UUID' }) },
  { additionalProperties: false },
);
export const CartParams = Type.Object({ id: Uuid({ description: 'cart UID' }) }, { additionalProperties: false });
export const ChargeParams = Type.Object(
  { id: Uuid({ description: 'order UID of the charge' }) },
  { additionalProperties: false },
);

export const CardHashKeySchema = Type.Object(
  {
    id: Type.Integer({ description: 'gateway_c’s key id: the `<id>` prefix of the card hash' }),
    public_key: Type.String({ description: 'RSA-2048 public key (PEM, SPKI) that encrypts the card data' }),
    date_created: Type.String({
      format: 'date-time',
      description: 'when gateway_c created the key (ISO 8601); single use, valid 5 minutes',
    }),
  },
  { description: 'A gateway_c card hash key' },
);

export const CardHashErrorsBody = Type.Object(
  { errors: Type.Array(Type.String()) },
  { description: 'why no key can be issued' },
);

/** Every status a card hash key route answers besides 200 (403 has no body). */
export const cardHashErrorResponses = {
  403: Type.Null({ description: 'origin not allowed, or an invalid or foreign API key; no body' }),
  422: CardHashErrorsBody,
  502: CardHashErrorsBody,
  503: CardHashErrorsBody,
  504: CardHashErrorsBody,
};
