import { Type } from 'typebox';
import { Nullable, Uuid } from '../../http/schemas.ts';
import { BrandingFields } from '../carts/index.ts';
import { AddressSchema } from '../customers/index.ts';

export const ChargeParams = Type.Object({ id: Uuid({ description: 'order UID' }) }, { additionalProperties: false });

export const ChargeShowSchema = Type.Object({
  id: Type.String({ description: 'the order UID' }),
  ...BrandingFields,
  date: Type.String({ format: 'date' }),
  due_date: Type.String({ format: 'date' }),
  retention: Type.Number(),
  freight: Type.Number(),
  observation: Nullable(Type.String()),
  customer: Nullable(
    Type.Object({
      email: Type.String(),
      name: Type.String(),
      foreign: Type.Boolean(),
      identification: Nullable(Type.String()),
      social_reason: Nullable(Type.String()),
      address: AddressSchema,
    }),
    'null when the charge names no customer',
  ),
  coupon: Nullable(Type.Object({ code: Type.String(), discount: Type.Number() }), 'null when the charge has no coupon'),
  products: Type.Array(
    Type.Object({
      id: Nullable(Type.Integer(), 'null for an item that names no product'),
      name: Type.String(),
      description: Nullable(Type.String()),
      product_type: Nullable(Type.String()),
      subscription: Type.Boolean(),
      quantity: Type.Integer(),
      value: Type.Number(),
      image: Nullable(Type.String()),
    }),
  ),
  invoices: Type.Array(
    Type.Object({ type: Type.String(), url: Nullable(Type.String()) }, { description: 'authorized invoices' }),
  ),
  files: Type.Array(Type.Object({ url: Type.String(), name: Type.String() })),
});
