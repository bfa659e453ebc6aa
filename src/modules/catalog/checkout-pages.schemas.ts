import { Type } from 'typebox';
import { IntegerId, Nullable, Uuid } from '../../http/schemas.ts';

export const CheckoutPageSummarySchema = Type.Object(
  {
    id: Uuid(),
    page_title: Type.String(),
    main_color: Type.String({ description: 'hex colour, #rrggbb' }),
    currency: Type.String({ description: 'ISO 4217' }),
    gateway: Type.String(),
    public_key: Type.String({
      description: "the page gateway's publishable key; empty when the company has no enabled integration for it",
    }),
    subscription: Type.Boolean({ description: 'true when at least one product of the page is a subscription' }),
    enable_coupons: Type.Boolean(),
    company_id: Type.Integer(),
  },
  { $id: 'CheckoutPageSummary' },
);

export const CheckoutPageListQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'matches the page title or a product name, case-insensitively and literally',
      }),
    ),
    has_products: Type.Optional(Type.Boolean({ description: 'true: at least one live product; false: none' })),
    product_ids: Type.Optional(
      Type.Array(IntegerId(), { maxItems: 100, description: 'pages with any of these products, as product_ids[]=…' }),
    ),
  },
  { additionalProperties: false },
);

export const CheckoutPageIdParams = Type.Object({ id: Uuid() }, { additionalProperties: false });

export const CheckoutPageProductSchema = Type.Object({
  id: Type.Integer(),
  uid: Uuid(),
  name: Type.String(),
  description: Type.String({ description: 'the description, else the short description, else empty' }),
  product_type: Type.String({ description: 'digital, physical or service' }),
  subscription: Type.Boolean(),
  type: Type.Union([Type.Literal('subscription'), Type.Literal('one_time')], {
    description: 'how the product is billed',
  }),
  interval: Nullable(
    Type.String(),
    'billing period of a subscription (monthly, quarterly, every_10_days…); null for one-time products',
  ),
  max_quantity: Type.Integer(),
  value: Type.Number({ description: 'unit price' }),
  image: Nullable(Type.String({ format: 'uri' }), 'null when unset'),
  allow_quantity: Type.Boolean(),
  recommended: Type.Boolean(),
});

const FreeObject = Type.Object({}, { additionalProperties: true });

export const CheckoutPageShowSchema = Type.Object({
  ...CheckoutPageSummarySchema.properties,
  customer_data_at: Type.Union([Type.Literal('start'), Type.Literal('end')]),
  logo: Nullable(Type.String({ format: 'uri' }), 'null when unset'),
  menus: Type.Array(Type.Unknown()),
  index_on_search_engines: Type.Boolean(),
  require_scheduling: Type.Boolean(),
  enable_two_cards: Type.Boolean(),
  upsell_product: Type.Optional(
    Type.Object({ id: Type.Integer(), name: Type.String() }, { description: 'present only when set' }),
  ),
  custom_code: Type.String({ description: 'HTML/JS snippet; empty when unset' }),
  default_payment_plan: Nullable(
    Type.Object({
      id: Type.String({ description: 'the payment plan id as a string (an option id is `{id}-{installments}`)' }),
      name: Type.String(),
      payment_method: Type.String({ description: 'credit_card, bank_slip or pix' }),
    }),
    'null when unset',
  ),
  integrations: FreeObject,
  products: Type.Array(CheckoutPageProductSchema, { description: 'in page order' }),
});
