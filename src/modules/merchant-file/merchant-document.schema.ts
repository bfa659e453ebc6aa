import { Type, type Static, type TProperties } from 'typebox';
import { Instant } from '../../http/date-range.ts';
import { HttpUrl, VisibleText } from '../../http/schemas.ts';
import { NOTIFICATION_EVENT_TYPES } from '../notifications/index.ts';

/** The same rule as the companies.slug CHECK, used for every slug in the document. */
export const SLUG_PATTERN = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';

/** The scheme here; the document's rules say what is wrong with a host or port (documentUrlProblem), more precisely than a pattern. */
const DocumentUrl = () => HttpUrl({ maxLength: 2048, pattern: '^https?://' });
const Slug = () => Type.String({ pattern: SLUG_PATTERN });
const Text = (maxLength = 255) => Type.String({ minLength: 1, maxLength });
const LongText = () => Type.String({ maxLength: 100_000 });
/** Major units; the two-decimal limit is checked with the cross-field rules so the message names the amount. */
const Money = () => Type.Number({ minimum: 0, maximum: 99_999_999.99 });
/** Fits numeric(9, 4). */
const Percent = () => Type.Number({ minimum: 0, maximum: 99_999 });
// Only http(s): a `javascript:` URL in a redirect or logo would run in the buyer's browser.
const Color = () => Type.String({ pattern: '^#[0-9a-fA-F]{6}$' });
const Closed = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
const FreeForm = () => Type.Record(Type.String(), Type.Unknown());
const Refs = () => Type.Array(Text(), { maxItems: 100 });

const CHECKOUT_GATEWAYS = ['gateway_a', 'gateway_b', 'gateway_c'] as const;
export const BASIC_AUTH_RECEIVERS = ['gateway_a', 'bank', 'invoicing'] as const;

export const GatewaySchema = Closed({
  gateway: Type.Enum(['gateway_a', 'gateway_b', 'gateway_c', 'bank'] as const),
  enabled: Type.Optional(Type.Boolean()),
  public_key: Type.Optional(Text(1000)),
  // Omitted means "keep the stored secret", so secrets can stay out of version-controlled files.
  secret_key: Type.Optional(Text(1000)),
  settings: Type.Optional(FreeForm()),
});

const WebhookCredential = Closed({
  receiver: Type.Enum([...BASIC_AUTH_RECEIVERS, 'gateway_b'] as const),
  username: Type.Optional(Text()),
  password: Type.Optional(Text(1000)),
  secret: Type.Optional(Text(1000)),
});

const Schedule = Closed({
  weekday: Type.Integer({ minimum: 0, maximum: 6 }),
  starts_at: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }),
  ends_at: Type.String({ pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$' }),
  slot_minutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 1440 })),
});

const Product = Closed({
  external_id: Text(),
  name: VisibleText({ maxLength: 255 }),
  value: Money(),
  product_type: Type.Optional(Type.Enum(['digital', 'physical', 'service'] as const)),
  description: Type.Optional(LongText()),
  short_description: Type.Optional(Type.String({ maxLength: 1000 })),
  unit_name: Type.Optional(Text(50)),
  weight: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  image: Type.Optional(DocumentUrl()),
  ncm: Type.Optional(Type.String({ pattern: '^[0-9]{8}$' })),
  tax_description: Type.Optional(Type.String({ maxLength: 1000 })),
  subscription: Type.Optional(Type.Boolean()),
  interval: Type.Optional(Type.Enum(['day', 'week', 'month', 'year'] as const)),
  interval_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
});

const PlanTax = Closed({
  installments: Type.Integer({ minimum: 1, maximum: 24 }),
  fixed: Type.Optional(Money()),
  percentage: Type.Optional(Percent()),
});

export const PaymentPlanSchema = Closed({
  ref: Text(),
  name: Text(),
  payment_method: Type.Enum(['credit_card', 'bank_slip', 'pix'] as const),
  max_installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 })),
  min_installment: Type.Optional(Money()),
  fine_type: Type.Optional(Type.Enum(['fixed', 'percentage'] as const)),
  fine: Type.Optional(Money()),
  fine_tax: Type.Optional(Percent()),
  late_interest: Type.Optional(Money()),
  late_interest_tax: Type.Optional(Percent()),
  taxes: Type.Optional(Type.Array(PlanTax, { maxItems: 24 })),
});

const Coupon = Closed({
  code: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  type: Type.Enum(['percentage', 'price'] as const),
  value: Type.Number({ exclusiveMinimum: 0, maximum: 99_999_999.99 }),
  expires_at: Type.Optional(Instant()),
  usage_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  product_external_ids: Type.Optional(Refs()),
});

/** Fields a checkout page and a cart page share. */
const pageFields = {
  slug: Slug(),
  page_title: Text(),
  main_color: Type.Optional(Color()),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
  gateway: Type.Optional(Type.Enum(CHECKOUT_GATEWAYS)),
  logo: Type.Optional(DocumentUrl()),
  menus: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100 })),
  integrations: Type.Optional(FreeForm()),
  require_scheduling: Type.Optional(Type.Boolean()),
  enable_two_cards: Type.Optional(Type.Boolean()),
  enable_coupons: Type.Optional(Type.Boolean()),
  default_payment_plan: Type.Optional(Text()),
  payment_plans: Type.Optional(Refs()),
  custom_code: Type.Optional(LongText()),
  redirect_url: Type.Optional(DocumentUrl()),
};

const CheckoutPageProduct = Closed({
  product: Text(),
  allow_quantity: Type.Optional(Type.Boolean()),
  max_quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  recommended: Type.Optional(Type.Boolean()),
});

const CheckoutPage = Closed({
  ...pageFields,
  customer_data_at: Type.Optional(Type.Enum(['start', 'end'] as const)),
  /** Ask the payer's name and CPF/CNPJ for Pix and card too (a boleto always asks). */
  asks_payer_identity: Type.Optional(Type.Boolean()),
  index_on_search_engines: Type.Optional(Type.Boolean()),
  upsell_product: Type.Optional(Text()),
  products: Type.Optional(Type.Array(CheckoutPageProduct, { maxItems: 100 })),
});

const CartPage = Closed({ ...pageFields, name: Text() });

export const CompanySchema = Closed({
  slug: Slug(),
  name: Text(),
  primary: Type.Optional(Type.Boolean()),
  legal_name: Type.Optional(Text()),
  document: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{12}[0-9]{2}$' })),
  city: Type.Optional(Text(100)),
  state: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  time_zone: Type.Optional(Text(64)),
  pix_key: Type.Optional(Text(77)),
  pix_expiration_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 43_200 })),
  boleto_due_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
  /** Offer the two-card split on the company's charges (a charge from a page that enables it has it anyway). */
  enable_two_cards: Type.Optional(Type.Boolean()),
  gateways: Type.Optional(Type.Array(GatewaySchema, { maxItems: 4 })),
  webhook_credentials: Type.Optional(Type.Array(WebhookCredential, { maxItems: 4 })),
  schedules: Type.Optional(Type.Array(Schedule, { maxItems: 200 })),
  sellers: Type.Optional(Type.Array(Closed({ name: Text() }), { maxItems: 1000 })),
  products: Type.Optional(Type.Array(Product, { maxItems: 10_000 })),
  payment_plans: Type.Optional(Type.Array(PaymentPlanSchema, { maxItems: 100 })),
  coupons: Type.Optional(Type.Array(Coupon, { maxItems: 10_000 })),
  checkout_pages: Type.Optional(Type.Array(CheckoutPage, { maxItems: 1000 })),
  cart_pages: Type.Optional(Type.Array(CartPage, { maxItems: 100 })),
});

/** Matched by url within the account; `events` omitted means every type; `company` limits it to one company's orders. */
const NotificationEndpoint = Closed({
  url: DocumentUrl(),
  events: Type.Optional(Type.Array(Type.Enum(NOTIFICATION_EVENT_TYPES), { maxItems: 20 })),
  company: Type.Optional(Slug()),
  enabled: Type.Optional(Type.Boolean()),
  description: Type.Optional(Text(500)),
});

export const MerchantDocumentSchema = Closed({
  account: Closed({
    name: Text(),
    slug: Slug(),
    allowed_hosts: Type.Optional(Type.Array(Text(), { maxItems: 100 })),
  }),
  companies: Type.Array(CompanySchema, { minItems: 1, maxItems: 100 }),
  notification_endpoints: Type.Optional(Type.Array(NotificationEndpoint, { maxItems: 100 })),
});

export type MerchantDocument = Static<typeof MerchantDocumentSchema>;
export type CompanyDocument = MerchantDocument['companies'][number];
export type ProductDocument = NonNullable<CompanyDocument['products']>[number];
export type PaymentPlanDocument = NonNullable<CompanyDocument['payment_plans']>[number];
export type CouponDocument = NonNullable<CompanyDocument['coupons']>[number];
export type CheckoutPageDocument = NonNullable<CompanyDocument['checkout_pages']>[number];
export type CartPageDocument = NonNullable<CompanyDocument['cart_pages']>[number];
export type NotificationEndpointDocument = NonNullable<MerchantDocument['notification_endpoints']>[number];
