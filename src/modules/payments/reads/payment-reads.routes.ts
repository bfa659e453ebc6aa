import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../http/app-context.ts';
import { assertPublicAccess, requireAccount } from '../../accounts/index.ts';
import { notFound } from '../../../http/errors.ts';
import { errorResponses } from '../../../http/schemas.ts';
import { checkoutPageExists } from '../../catalog/index.ts';
import { findCartOwner, findChargeOwner } from './payment-reads.repo.ts';
import {
  LastPaymentSchema,
  NoContent,
  PaymentIdsQuery,
  PaymentStatusSchema,
  UidParams,
} from './payment-reads.schemas.ts';
import { lastChargePayment, paymentStatuses } from './payment-reads.service.ts';

/** Read-only payment status endpoints: the lists of a checkout page and of a cart, and the last attempt of a charge. */
export function registerPaymentReadRoutes(parent: FastifyInstance, { database }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;
  const statusListResponses = { 200: Type.Array(PaymentStatusSchema), 204: NoContent };

  app.get(
    '/checkout_pages/:id/payments',
    {
      config: { access: 'key' },
      schema: {
        tags: ['Checkout pages'],
        security: [{ apiKey: [] }],
        params: UidParams,
        querystring: PaymentIdsQuery,
        response: { ...statusListResponses, ...errorResponses(401, 404, 422) },
      },
    },
    async (request, reply) => {
      const accountId = requireAccount(request);
      if (!(await checkoutPageExists(db, accountId, request.params.id))) throw notFound('Checkout page');
      const items = await paymentStatuses(db, accountId, { checkoutPageId: request.params.id }, request.query.ids);
      return items.length ? items : reply.code(204).send(null);
    },
  );

  app.get(
    '/carts/:id/payments',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Carts'],
        params: UidParams,
        querystring: PaymentIdsQuery,
        response: { ...statusListResponses, ...errorResponses(403, 404, 422) },
      },
    },
    async (request, reply) => {
      const cart = await findCartOwner(db, request.params.id);
      if (!cart) throw notFound('Cart');
      await assertPublicAccess(db, request, cart.account_id);
      const items = await paymentStatuses(db, cart.account_id, { cartId: cart.id }, request.query.ids);
      return items.length ? items : reply.code(204).send(null);
    },
  );

  app.get(
    '/charges/:id/last_payment',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Charges'],
        params: UidParams,
        response: { 200: LastPaymentSchema, 204: NoContent, ...errorResponses(403, 404, 422) },
      },
    },
    async (request, reply) => {
      const charge = await findChargeOwner(db, request.params.id);
      if (!charge) throw notFound('Charge');
      await assertPublicAccess(db, request, charge.account_id);
      return (await lastChargePayment(db, charge.account_id, charge.id)) ?? reply.code(204).send(null);
    },
  );
}
