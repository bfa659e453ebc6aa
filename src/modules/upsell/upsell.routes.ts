import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../http/app-context.ts';
import type { IdempotencyOptions } from '../../http/idempotency.ts';
import { errorResponses } from '../../http/schemas.ts';
import { genuineOfferToken } from '../payments/index.ts';
import { UpsellBody, UpsellResultSchema } from './upsell.schemas.ts';
import { redeemOffer, type UpsellOutcome } from './upsell.service.ts';

function upsellResult(outcome: UpsellOutcome) {
  return {
    order_status: outcome.orderStatus,
    payments: outcome.payments,
    ...(outcome.bankSlipUrl ? { bank_slip_url: outcome.bankSlipUrl } : {}),
    ...(outcome.pix
      ? {
          pix_qr_code: outcome.pix.qrCode,
          pix_qr_code_url: outcome.pix.url,
          pix_expires_at: outcome.pix.expiresAt.toISOString(),
        }
      : {}),
  };
}

/** `POST /upsell`: one-click redemption of an offer, from any origin (the signed single-use token is the credential). */
export function registerUpsellRoutes(parent: FastifyInstance, context: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const deps = {
    masterKey: context.config.masterKey,
    gatewayUrls: context.gatewayUrls,
    publicUrl: context.config.publicUrl.replace(/\/$/, ''),
    clock: context.clock,
  };

  // The offer names its account; a genuine token scopes the key, expired or spent since the first answer
  // (a forged one runs and is refused).
  const idempotency: IdempotencyOptions = {
    scope: async (request) => {
      const verified = genuineOfferToken(deps.masterKey, String((request.body as { offer?: unknown }).offer ?? ''));
      if (!verified) return undefined;
      const offer = await db
        .selectFrom('upsell_offers')
        .select('account_id')
        .where('id', '=', verified.offerId)
        .executeTakeFirst();
      return offer?.account_id;
    },
    // As on the pay routes: a 502 leaves the upsell payment pending and reconciled.
    keptServerErrors: [502],
  };

  app.post(
    '/upsell',
    {
      config: { access: 'open', rateLimit: 'public', idempotency },
      schema: {
        tags: ['Upsell'],
        body: UpsellBody,
        response: { 200: UpsellResultSchema, ...errorResponses(400, 413, 415, 422, 502, 503, 504) },
      },
    },
    async (request) => upsellResult(await redeemOffer(db, deps, request.body, context.clock())),
  );
}
