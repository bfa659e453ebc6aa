import type { FastifyInstance } from 'fastify';
import { byApiKey } from '../../../http/idempotency.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../http/app-context.ts';
import { requireAccount } from '../../accounts/index.ts';
import { errorResponses } from '../../../http/schemas.ts';
import { absentBodyAsEmpty } from '../../../http/validation.ts';
import { RefundBody, RefundDone, RefundParams } from './refunds.schemas.ts';
import { refundPayment } from './refunds.service.ts';

/** `POST /payments/{id}/refund`: a full or partial refund of a captured payment, 200 with an empty body. */
export function registerRefundRoutes(parent: FastifyInstance, context: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const deps = { masterKey: context.config.masterKey, gatewayUrls: context.gatewayUrls, clock: context.clock };

  app.post(
    '/payments/:id/refund',
    {
      config: { access: 'key', idempotency: byApiKey },
      // Every field is optional, so a request without a body is a full refund with the defaults.
      // A body of JSON `null` is malformed, not absent: it must never refund everything.
      preValidation: absentBodyAsEmpty,
      schema: {
        tags: ['Payments'],
        security: [{ apiKey: [] }],
        params: RefundParams,
        body: RefundBody,
        response: { 200: RefundDone, ...errorResponses(400, 401, 404, 413, 415, 422, 502, 503, 504) },
      },
    },
    async (request, reply) => {
      await refundPayment(db, deps, requireAccount(request), request.params.id, request.body, context.clock());
      return reply.code(200).send(undefined as unknown as null);
    },
  );
}
