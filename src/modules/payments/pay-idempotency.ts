import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { IdempotencyOptions } from '../../http/idempotency.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Idempotency keys of the pay entry points belong to the account that owns what is paid: the checkout
 * page, the cart or the charge. An unknown id has no scope; the handler then answers its own 4xx.
 */
export function payIdempotency(db: Kysely<DB>) {
  const owner = (table: 'checkout_pages' | 'carts' | 'orders', column: 'id' | 'uid', id: unknown) =>
    typeof id === 'string' && UUID.test(id)
      ? db.selectFrom(table).select('account_id').where(column as 'id', '=', id).executeTakeFirst().then((row) => row?.account_id)
      : Promise.resolve(undefined);
  const params = (request: FastifyRequest) => (request.params as { id?: string }).id;
  return {
    checkoutPage: { scope: (request) => owner('checkout_pages', 'id', (request.body as { checkout_page_id?: unknown } | undefined)?.checkout_page_id) },
    cart: { scope: (request) => owner('carts', 'id', params(request)) },
    charge: { scope: (request) => owner('orders', 'uid', params(request)) },
  } satisfies Record<string, IdempotencyOptions>;
}
