import { Type } from 'typebox';
import { HttpUrl, IntegerId, KeyValue, Money, Nullable, Uuid, VisibleText } from '../../http/schemas.ts';
import { CustomerField } from '../customers/index.ts';
import { PAYMENT_METHODS } from '../orders/index.ts';

export const CartPageParams = Type.Object(
  { id: Uuid({ description: 'cart page UUID' }) },
  { additionalProperties: false },
);
export const CartParams = Type.Object({ id: Uuid({ description: 'cart UID' }) }, { additionalProperties: false });

export const CartCustomerBody = Type.Object(
  {
    identification: Type.Optional(CustomerField.identification),
    email: Type.Optional(CustomerField.email),
    phone: Type.Optional(CustomerField.phone),
    name: Type.Optional(CustomerField.name),
    state: Type.Optional(CustomerField.state),
    street: Type.Optional(CustomerField.street),
    zipcode: Type.Optional(CustomerField.zipcode),
    city: Type.Optional(CustomerField.city),
  },
  { additionalProperties: false, description: 'prefills the payment page' },
);

export const CartItemBody = Type.Object(
  {
    id: Type.Optional(IntegerId({ description: 'one of the account’s products' })),
    name: Type.Optional(
      VisibleText({
        maxLength: 255,
        description: 'required without id (with a visible character); with id the product’s name is used',
      }),
    ),
    external_id: Type.Optional(Type.String({ maxLength: 255 })),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
    value: Type.Optional(
      Money({ description: 'unit price; required without id; with id it overrides the product’s price' }),
    ),
    total: Type.Optional(Money({ description: 'default quantity × value' })),
    image: Type.Optional(HttpUrl()),
  },
  { additionalProperties: false },
);

export const CartCreateBody = Type.Object(
  {
    payment_method: Type.Union(PAYMENT_METHODS.map((method) => Type.Literal(method))),
    freight: Type.Optional(Money({ description: 'added to the cart total' })),
    total: Type.Optional(Money({ description: 'overrides the computed total' })),
    customer: Type.Optional(CartCustomerBody),
    items: Type.Optional(
      Type.Array(CartItemBody, {
        maxItems: 100,
        description:
          'at least one item; the cart total with freight must be positive; each line, the items together and the ' +
          'cart total with freight may amount to at most 99999999.99',
      }),
    ),
    meta: Type.Optional(KeyValue(Type.Unknown())),
  },
  { additionalProperties: false },
);

export const CartCreatedSchema = Type.Object({
  id: Type.String({ description: 'cart UID' }),
  link: Type.String({ format: 'uri', description: '{PUBLIC_URL}/pay/carts/{uid}' }),
});

const PlanRef = Type.Object({ id: Type.String(), name: Type.String(), payment_method: Type.String() });
const AnyObject = Type.Object({}, { additionalProperties: true });

/** The branding fields CartShow and ChargeShow share. */
export const BrandingFields = {
  gateway: Type.String(),
  main_color: Type.String(),
  menus: Type.Array(Type.Unknown()),
  page_title: Type.String(),
  public_key: Type.String({
    description: 'the company’s publishable key for the gateway; empty when none is configured',
  }),
  logo: Nullable(Type.String(), 'null when unset'),
  currency: Type.String(),
  enable_two_cards: Type.Boolean(),
  custom_code: Type.String({ description: 'HTML/JS snippet; empty when unset' }),
  default_payment_plan: Nullable(PlanRef, 'null when the page has none'),
};

export const CartShowSchema = Type.Object({
  id: Type.String(),
  ...BrandingFields,
  enable_coupons: Type.Boolean(),
  company_id: Type.Integer(),
  freight: Type.Number(),
  customer: Type.Object({
    identification: Nullable(Type.String()),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    name: Nullable(Type.String()),
    state: Nullable(Type.String()),
    street: Nullable(Type.String()),
    zipcode: Nullable(Type.String()),
    city: Nullable(Type.String()),
  }),
  products: Type.Array(
    Type.Object({
      id: Nullable(Type.Integer(), 'null for an item given by name'),
      name: Type.String(),
      external_id: Nullable(Type.String()),
      quantity: Type.Integer(),
      value: Type.Number(),
      total: Type.Number(),
      image: Nullable(Type.String()),
    }),
  ),
  integrations: AnyObject,
});
