import type { FastifyInstance } from 'fastify';
import { byApiKey } from '../../http/idempotency.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../app.ts';
import { assertPublicAccess, requireAccount } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { errorResponses, NoQuery } from '../../http/schemas.ts';
import { toMajor } from '../../lib/money.ts';
import { whenSet } from '../orders/order-data.view.ts';
import { findCart, findCartItems } from './carts.repo.ts';
import { CartCreateBody, CartCreatedSchema, CartPageParams, CartParams, CartShowSchema } from './carts.schemas.ts';
import { createCart } from './carts.service.ts';
import { pageBranding } from './page-branding.ts';

export const cartLink = (publicUrl: string, uid: string) => `${publicUrl}/pay/carts/${uid}`;

export function registerCartRoutes(parent: FastifyInstance, { config, database, clock }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = database;

  app.post(
    '/carts/:id',
    {
      config: { access: 'key', idempotency: byApiKey },
      schema: {
        tags: ['Carts'],
        security: [{ apiKey: [] }],
        description: 'Creates a cart of the cart page and returns its hosted payment link',
        params: CartPageParams,
        body: CartCreateBody,
        response: { 201: CartCreatedSchema, ...errorResponses(400, 401, 404, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const uid = await createCart(db, requireAccount(request), request.params.id, request.body, clock());
      reply.code(201);
      return { id: uid, link: cartLink(config.publicUrl, uid) };
    },
  );

  app.get(
    '/carts/:id',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Carts'],
        params: CartParams,
        querystring: NoQuery,
        response: { 200: CartShowSchema, ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => {
      const cart = await findCart(db, request.params.id.toLowerCase());
      if (!cart) throw notFound('Cart');
      await assertPublicAccess(db, request, cart.account_id);
      const [branding, items] = await Promise.all([
        pageBranding(db, 'cart_pages', cart.account_id, cart.cart_page_id),
        findCartItems(db, cart.account_id, cart.id),
      ]);
      if (!branding) throw notFound('Cart page');
      return {
        id: cart.id,
        ...branding,
        company_id: cart.company_id,
        freight: toMajor(cart.freight_cents),
        customer: (cart.customer ?? {}) as Record<string, string>,
        products: items.map((item) => ({
          ...whenSet('id', item.product_id),
          name: item.name,
          ...whenSet('external_id', item.external_id),
          quantity: item.quantity,
          value: toMajor(item.unit_value_cents),
          total: toMajor(item.total_cents),
          ...whenSet('image', item.image_url),
        })),
      };
    },
  );
}
