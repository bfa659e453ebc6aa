import { Type, type Static } from 'typebox';
import { CompanySchema, GatewaySchema, PaymentPlanSchema } from '../merchant-file/index.ts';

/**
 * The settings bodies take the merchant file's own fields and schemas (a company's, a payment plan's fine terms, a
 * gateway's), so a value the file refuses is refused here too; the cross-field rules are the file's as well.
 */
const companyFields = Type.Pick(CompanySchema, [
  'name',
  'legal_name',
  'document',
  'city',
  'state',
  'time_zone',
  'pix_expiration_minutes',
  'boleto_due_days',
]).properties;

const AddressFields = Type.Object(
  {
    street: Type.String({ maxLength: 255 }),
    street_number: Type.String({ maxLength: 20 }),
    complement: Type.String({ maxLength: 255 }),
    district: Type.String({ maxLength: 100 }),
    postal_code: Type.Union([Type.String({ pattern: '^[0-9]{8}$', description: 'CEP, 8 digits' }), Type.Literal('')]),
  },
  { additionalProperties: false },
);

const fineTermFields = Type.Pick(PaymentPlanSchema, [
  'fine_type',
  'fine',
  'fine_tax',
  'late_interest',
  'late_interest_tax',
]).properties;

export const CompanySettingsBody = Type.Object(
  {
    ...Type.Partial(Type.Object(companyFields)).properties,
    address: Type.Optional(Type.Partial(AddressFields, { additionalProperties: false })),
    fine_terms: Type.Optional(
      Type.Object(fineTermFields, {
        additionalProperties: false,
        description: 'major units (R$) with two decimals, rates in % with four, as in the merchant file',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CompanySettingsInput = Static<typeof CompanySettingsBody>;

const NullableText = Type.Union([Type.String(), Type.Null()]);

export const CompanySettingsView = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  primary: Type.Boolean(),
  name: Type.String(),
  legal_name: NullableText,
  document: NullableText,
  address: Type.Object({
    street: NullableText,
    street_number: NullableText,
    complement: NullableText,
    district: NullableText,
    postal_code: NullableText,
    city: Type.String(),
    state: NullableText,
  }),
  time_zone: Type.String(),
  pix_expiration_minutes: Type.Integer(),
  boleto_due_days: Type.Integer(),
  fine_terms: Type.Object({
    fine_type: Type.Union([Type.Literal('fixed'), Type.Literal('percentage')]),
    fine: Type.Number(),
    fine_tax: Type.Number(),
    late_interest: Type.Number(),
    late_interest_tax: Type.Number(),
  }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const GatewayBody = Type.Object(Type.Partial(Type.Omit(GatewaySchema, ['gateway', 'settings'])).properties, {
  additionalProperties: false,
});
export type GatewayInput = Static<typeof GatewayBody>;

export const GATEWAYS = ['gateway_a', 'gateway_b', 'gateway_c', 'bank'] as const;
export type GatewayName = (typeof GATEWAYS)[number];

export const GatewayView = Type.Object({
  gateway: Type.Enum(GATEWAYS),
  configured: Type.Boolean(),
  enabled: Type.Boolean(),
  public_key: NullableText,
  secret_last4: Type.Union([
    Type.String({ description: 'the last four characters; the rest is never shown' }),
    Type.Null(),
  ]),
  secret_set_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const CompanyParams = Type.Object(
  { company_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) },
  { additionalProperties: false },
);
export const GatewayParams = Type.Object(
  {
    company_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    gateway: Type.Enum(GATEWAYS),
  },
  { additionalProperties: false },
);
