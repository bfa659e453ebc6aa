import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../http/app-context.ts';
import { assertPublicAccess } from '../accounts/index.ts';
import { notFound } from '../../http/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { findCharge } from './charges.repo.ts';
import { ChargeParams, ChargeShowSchema } from './charges.schemas.ts';
import { showCharge, toChargeShow } from './charges.service.ts';

export function registerChargeRoutes(parent: FastifyInstance, { database }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;

  app.get(
    '/charges/:id',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Charges'],
        description: 'A charge (an order with a due date) as its payment page shows it',
        params: ChargeParams,
        response: { 200: ChargeShowSchema, ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => {
      const charge = await findCharge(db, request.params.id.toLowerCase());
      if (!charge) throw notFound('Charge');
      await assertPublicAccess(db, request, charge.account_id);
      return toChargeShow(await showCharge(db, charge));
    },
  );
}
