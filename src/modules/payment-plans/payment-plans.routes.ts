import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { assertPublicAccess } from '../accounts/index.ts';
import { rememberedAnswers } from './payment-plans.answers.ts';
import { resolvePricingContext } from './payment-plans.context.ts';
import { cachedCheckoutPageReads } from './payment-plans.reads.ts';
import { ErrorsBody, PaymentPlanOptionsSchema, PaymentPlansQuery } from './payment-plans.schemas.ts';
import { pricePaymentPlans } from './payment-plans.service.ts';
import { paymentPlanOptionsView } from './payment-plans.view.ts';
import { requestCompany } from './request-company.ts';

export function registerPaymentPlanRoutes(parent: FastifyInstance, { config, database, clock }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;
  const publicHostname = new URL(config.publicUrl).hostname;
  const reads = cachedCheckoutPageReads(db);
  const answer = rememberedAnswers(reads);

  app.get(
    '/payment_plans',
    {
      config: { access: 'public', errorFormat: 'errors' },
      schema: {
        tags: ['Payment plans'],
        description:
          'Installment options for one context (checkout_page_id, charge_id, cart_id, cart_page_id, resolved in that order) or none.',
        querystring: PaymentPlansQuery,
        response: {
          200: PaymentPlanOptionsSchema,
          403: Type.Null({ description: 'origin not allowed or invalid API key; no body' }),
          422: ErrorsBody,
        },
      },
    },
    async (request) => {
      const context = await resolvePricingContext(
        db,
        request.query,
        () => requestCompany(db, request, publicHostname),
        reads,
      );
      await assertPublicAccess(db, request, context.accountId);
      const now = clock();
      return answer(context, request.query, now, async () =>
        paymentPlanOptionsView(await pricePaymentPlans(db, context, request.query, now, reads)),
      );
    },
  );
}
