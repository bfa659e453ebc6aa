import { Type } from 'typebox';
import { HttpUrl, IntegerId, KeyValue, Money, Nullable, Uuid } from '../../http/schemas.ts';
import { Instant } from '../../http/date-range.ts';

const Text = (maxLength = 255) => Type.String({ maxLength });

/** Field rules shared by POST /customers, the customer of POST /orders and the cart customer. */
export const CustomerField = {
  email: Type.String({
    format: 'email',
    maxLength: 254,
    description: 'valid email; the upsert key (stored lower-cased)',
  }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  phone: Type.String({ pattern: '^[0-9]{1,11}$', description: 'digits only, area code included, at most 11' }),
  identification: Type.String({
    minLength: 1,
    maxLength: 14,
    description:
      'CPF (11 digits) or CNPJ (14 characters, letters allowed before the check digits) with valid check digits, at most 14 characters as sent. `.`, `-`, `/` and spaces within them are stripped: a formatted CPF fits, a CNPJ is sent as its 14 bare characters. With `foreign: true`, any text up to 14 characters',
  }),
  state: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'two-letter state code (stored upper-cased)' }),
  street: Text(),
  neighborhood: Text(),
  number: Text(60),
  complement: Text(),
  zipcode: Text(20),
  city: Text(),
};

export const AddressFields = {
  neighborhood: Type.Optional(CustomerField.neighborhood),
  number: Type.Optional(CustomerField.number),
  street: Type.Optional(CustomerField.street),
  zipcode: Type.Optional(CustomerField.zipcode),
  state: Type.Optional(CustomerField.state),
  city: Type.Optional(CustomerField.city),
  complement: Type.Optional(CustomerField.complement),
};

export const CustomerBody = Type.Object(
  {
    email: CustomerField.email,
    name: CustomerField.name,
    phone: CustomerField.phone,
    identification: Type.Optional(CustomerField.identification),
    foreign: Type.Optional(
      Type.Boolean({ description: 'true for customers outside Brazil: identification is not checked' }),
    ),
    ...AddressFields,
    tags: Type.Optional(Text(1000)),
    list_ids: Type.Optional(Text(1000)),
    carrier: Type.Optional(Text()),
    url: Type.Optional(HttpUrl()),
    main_product_id: Type.Optional(
      IntegerId({ description: 'with create_deal: the order gets one item of this product' }),
    ),
    checkout_page_id: Type.Optional(Uuid({ description: 'the page’s company owns the customer' })),
    coupon: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'applied to the order when create_deal is true' }),
    ),
    minimum_retention_value: Type.Optional(Money()),
    state_inscription: Type.Optional(Text(60)),
    social_reason: Type.Optional(Text()),
    municipal_inscription: Type.Optional(Text(60)),
    auxiliary_emails: Type.Optional(Type.Array(CustomerField.email, { maxItems: 20 })),
    meta: Type.Optional(KeyValue(Type.String({ maxLength: 1000 }), { description: 'values must be strings' })),
    create_deal: Type.Optional(
      Type.Boolean({
        description: 'true also creates an order; its id is returned in order_id (null when it could not be created)',
      }),
    ),
    scheduled_at: Type.Optional(Instant()),
    observation: Type.Optional(Text(5000)),
  },
  { additionalProperties: false },
);

export const AddressSchema = Type.Object(
  {
    street: Nullable(Type.String()),
    neighborhood: Nullable(Type.String()),
    number: Nullable(Type.String()),
    complement: Nullable(Type.String()),
    zipcode: Nullable(Type.String()),
    city: Nullable(Type.String()),
    state: Nullable(Type.String()),
  },
  { description: 'every address field, null when unset' },
);

export const CustomerResponseSchema = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  identification: Nullable(Type.String()),
  meta: Type.Record(Type.String(), Type.String()),
  name: Type.String(),
  phone: Nullable(Type.String()),
  foreign: Type.Boolean(),
  address: AddressSchema,
  order_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'the order created by create_deal; null otherwise or when it could not be created',
  }),
});
