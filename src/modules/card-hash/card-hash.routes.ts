import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { assertPublicAccess } from '../accounts/index.ts';
import { validationFailed } from '../../http/errors.ts';
import { findCharge } from '../charges/index.ts';
import { findCartOwner, findCheckoutPageOwner } from './card-hash.repo.ts';
import {
  CardHashKeySchema,
  CartParams,
  ChargeParams,
  CheckoutPageParams,
  cardHashErrorResponses,
} from './card-hash.schemas.ts';
import { chargeGateway, issueCardHashKey, type CardHashContext } from './card-hash.service.ts';

/**
 * gateway_c card hash keys for a checkout page, a cart and a charge: public, host-restricted by the
 * owning account; every refusal but 403 is `{ errors: [...] }`, and 403 has no body.
 */
export function registerCardHashRoutes(
  parent: FastifyInstance,
  { config, database, clock, gatewayUrls }: AppContext,
): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;
  const issue = (context: CardHashContext) =>
    issueCardHashKey({ db, masterKey: config.masterKey, gatewayUrl: gatewayUrls.gateway_c, now: clock() }, context);
  const routeOptions = <Params extends TSchema>(tag: string, paidWith: string, params: Params) => ({
    config: { access: 'public' as const, errorFormat: 'errors' as const },
    schema: {
      tags: [tag],
      description: `A single-use gateway_c card hash key (valid 5 minutes); the hash goes to ${paidWith} as credit_card_N_token`,
      params,
      response: { 200: CardHashKeySchema, ...cardHashErrorResponses },
    },
  });

  app.get(
    '/checkout_pages/:id/card_hash_key',
    routeOptions('Checkout pages', 'POST /payments', CheckoutPageParams),
    async (request) => {
      const page = await findCheckoutPageOwner(db, request.params.id.toLowerCase());
      if (!page) throw validationFailed('checkout page not found');
      await assertPublicAccess(db, request, page.account_id);
      return issue({
        accountId: page.account_id,
        companyId: page.company_id,
        gateway: page.gateway,
        label: 'checkout page',
      });
    },
  );

  app.get('/carts/:id/card_hash_key', routeOptions('Carts', 'POST /carts/{id}/pay', CartParams), async (request) => {
    const cart = await findCartOwner(db, request.params.id.toLowerCase());
    if (!cart) throw validationFailed('cart not found');
    await assertPublicAccess(db, request, cart.account_id);
    return issue({ accountId: cart.account_id, companyId: cart.company_id, gateway: cart.gateway, label: 'cart' });
  });

  app.get(
    '/charges/:id/card_hash_key',
    routeOptions('Charges', 'POST /charges/{id}/pay', ChargeParams),
    async (request) => {
      const charge = await findCharge(db, request.params.id.toLowerCase());
      if (!charge) throw validationFailed('charge not found');
      await assertPublicAccess(db, request, charge.account_id);
      return issue({
        accountId: charge.account_id,
        companyId: charge.company_id,
        gateway: await chargeGateway(db, charge),
        label: 'charge',
      });
    },
  );
}
