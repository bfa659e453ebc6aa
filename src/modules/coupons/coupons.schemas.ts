import { Type } from 'typebox';

export const CouponCodeParams = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

export const CouponValidateQuery = Type.Object(
  {
    product_id: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'a product id or a comma-separated list; the coupon must apply to all',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CouponValidationSchema = Type.Object({
  code: Type.String({ description: 'as stored (upper-cased)' }),
  value: Type.Number({ description: 'the percent to deduct, or the fixed amount in major units' }),
  type: Type.Union([Type.Literal('percentage'), Type.Literal('price')]),
});

export const CouponErrorBody = Type.Object({ error: Type.String() });
