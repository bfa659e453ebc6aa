import { Type } from 'typebox';
import { Uuid } from '../../http/schemas.ts';
import { BrandingFields } from '../carts/carts.schemas.ts';
import { AddressSchema } from '../customers/customers.schemas.ts';

export const ChargeParams = Type.Object({ id: Uuid({ description: 'order UID' }) }, { additionalProperties: false });

export const ChargeShowSchema = Type.Object({
  id: Type.String({ description: 'the order UID' }),
  ...BrandingFields,
  date: Type.String({ format: 'date' }),
  due_date: Type.String({ format: 'date' }),
  retention: Type.Number(),
  freight: Type.Number(),
  observation: Type.Optional(Type.String({ description: 'present when set' })),
  customer: Type.Optional(
    Type.Object({
      email: Type.String(),
      name: Type.String(),
      foreign: Type.Boolean(),
      identification: Type.Optional(Type.String()),
      social_reason: Type.Optional(Type.String()),
      address: AddressSchema,
    }),
  ),
  coupon: Type.Optional(
    Type.Object(
      { code: Type.String(), discount: Type.Number() },
      { description: 'present when the charge has a coupon' },
    ),
  ),
  products: Type.Array(
    Type.Object({
      id: Type.Optional(Type.Integer()),
      name: Type.String(),
      description: Type.Optional(Type.String()),
      product_type: Type.Optional(Type.String()),
      subscription: Type.Boolean(),
      quantity: Type.Integer(),
      value: Type.Number(),
      image: Type.Optional(Type.String()),
    }),
  ),
  invoices: Type.Array(
    Type.Object({ type: Type.String(), url: Type.Optional(Type.String()) }, { description: 'authorized invoices' }),
  ),
  files: Type.Array(Type.Object({ url: Type.String(), name: Type.String() })),
});
