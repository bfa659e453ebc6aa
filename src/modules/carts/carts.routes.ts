import type { FastifyInstance } from 'fastify';
import { byApiKey } from '../../http/idempotency.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../http/app-context.ts';
import { assertPublicAccess, requireAccount } from '../accounts/index.ts';
import { notFound } from '../../http/errors.ts';
import { errorResponses, NoQuery } from '../../http/schemas.ts';
import { toMajor } from '../../lib/money.ts';
import { findCart, findCartItems } from './carts.repo.ts';
import { CartCreateBody, CartCreatedSchema, CartPageParams, CartParams, CartShowSchema } from './carts.schemas.ts';
import { createCart } from './carts.service.ts';
import { pageBranding } from './page-branding.ts';

export const cartLink = (publicUrl: string, uid: string) => `${publicUrl}/pay/carts/${uid}`;

const CART_CUSTOMER_FIELDS = [
  'identification',
  'email',
  'phone',
  'name',
  'state',
  'street',
  'zipcode',
  'city',
] as const;

/** CartShow.customer: every field, null where the cart did not prefill it. */
function cartCustomer(stored: unknown): Record<(typeof CART_CUSTOMER_FIELDS)[number], string | null> {
  const fields = (stored !== null && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return Object.fromEntries(CART_CUSTOMER_FIELDS.map((field) => [field, text(fields[field])])) as Record<
    (typeof CART_CUSTOMER_FIELDS)[number],
    string | null
  >;
}

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
        customer: cartCustomer(cart.customer),
        products: items.map((item) => ({
          id: item.product_id,
          name: item.name,
          external_id: item.external_id,
          quantity: item.quantity,
          value: toMajor(item.unit_value_cents),
          total: toMajor(item.total_cents),
          image: item.image_url,
        })),
      };
    },
  );
}
