import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { assertPublicAccess } from '../accounts/index.ts';
import { businessRule } from '../../http/errors.ts';
import { toMajor } from '../../lib/money.ts';
import { couponCompany, parseProductIdList } from './coupon-validation.ts';
import { CouponCodeParams, CouponErrorBody, CouponValidateQuery, CouponValidationSchema } from './coupons.schemas.ts';
import { CouponError, findUsableCoupon } from './coupons.service.ts';

export function registerCouponRoutes(parent: FastifyInstance, { config, database, clock }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;
  const publicHostname = new URL(config.publicUrl).hostname;

  app.get(
    '/coupons/:code/validate',
    {
      config: { access: 'public', errorFormat: 'error' },
      schema: {
        tags: ['Coupons'],
        description:
          'Whether a coupon is usable for every listed product. The company is the per-company host’s, else the products’, else the API key’s primary one.',
        params: CouponCodeParams,
        querystring: CouponValidateQuery,
        response: {
          200: CouponValidationSchema,
          403: Type.Null({ description: 'origin not allowed or invalid API key; no body' }),
          422: CouponErrorBody,
        },
      },
    },
    async (request) => {
      const productIds = parseProductIdList(request.query.product_id);
      const company = await couponCompany(db, request, publicHostname, productIds);
      await assertPublicAccess(db, request, company.accountId);
      try {
        const coupon = await findUsableCoupon(db, company, request.params.code, productIds, clock());
        return coupon.rule.type === 'percentage'
          ? { code: coupon.code, value: coupon.rule.percentage, type: 'percentage' as const }
          : { code: coupon.code, value: toMajor(coupon.rule.amountCents), type: 'price' as const };
      } catch (error) {
        if (error instanceof CouponError) throw businessRule(error.message);
        throw error;
      }
    },
  );
}
