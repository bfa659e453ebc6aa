import { Type } from 'typebox';
import { IntegerId, VisibleText } from '../../http/schemas.ts';

export const ProductSummarySchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    type: Type.String({ description: 'digital, physical or service' }),
    company_id: Type.Integer(),
    value: Type.Number(),
    deleted: Type.Boolean(),
    subscription: Type.Boolean(),
  },
  { $id: 'ProductSummary' },
);

export const ProductShowSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String({ description: 'the description, else the short description, else empty' }),
    subscription: Type.Boolean(),
    value: Type.Number(),
    weight: Type.Optional(Type.Number({ description: 'grams; present only when set' })),
    image: Type.Optional(Type.String({ format: 'uri', description: 'present only when attached' })),
  },
  { $id: 'ProductShow' },
);

export const ProductListQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 200 })),
    deleted: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

export const ProductIdParams = Type.Object({ id: IntegerId() }, { additionalProperties: false });

export const ProductCreateBody = Type.Object(
  {
    name: VisibleText({ maxLength: 255, description: 'with at least one visible character' }),
    value: Type.Number({ minimum: 0, maximum: 99_999_999.99, description: 'major units, at most two decimals' }),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    short_description: Type.Optional(Type.String({ maxLength: 1000 })),
    tax_description: Type.Optional(Type.String({ maxLength: 1000 })),
    unit_name: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    weight: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1_000_000, multipleOf: 1, description: 'whole grams (450, not 450.5)' }),
    ),
    ncm: Type.Optional(Type.String({ pattern: '^[0-9]{8}$', description: 'fiscal classification, 8 digits' })),
    company_id: Type.Optional(IntegerId()),
    financial_account_id: Type.Optional(IntegerId()),
    tax_configuration_id: Type.Optional(IntegerId()),
    external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

const NamedRef = Type.Object({ id: Type.Integer(), name: Type.String() });

export const ProductCreateResponseSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    value: Type.Number(),
    tax_description: Type.String({ description: 'empty when unset' }),
    ncm: Type.String({ description: 'empty when unset' }),
    unit: Type.Object({ name: Type.String() }),
    company: NamedRef,
    tax_configuration: Type.Optional(Type.Object(NamedRef.properties, { description: 'present only when set' })),
    financial_account: Type.Optional(Type.Object(NamedRef.properties, { description: 'present only when set' })),
  },
  { $id: 'ProductCreateResponse' },
);

export const GatewayPublicKeySchema = Type.Object({
  public_key: Type.String({
    description: "the publishable gateway_a key of the product's company, for client-side tokenization",
  }),
});
