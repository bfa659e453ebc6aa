import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Owners remembered per process: a few megabytes at most. */
const REMEMBERED_OWNERS = 20_000;

export type PayOwner = (request: FastifyRequest) => Promise<string | undefined>;

/**
 * The account that owns what a pay request pays: the checkout page (body), the cart or the charge (path).
 * Read from the raw request, before validation, it is both the account whose host restriction is decided
 * first (route `config.publicOwner`) and the scope of the Idempotency-Key. Any row counts, even a deleted
 * page or an order that is not a charge, so a refused caller cannot tell those from payable ones. An id that
 * names nothing (or no uuid) has no owner: validation or the handler answers (422/404), as to any caller.
 * Each request's owner is read once, however many hooks ask.
 */
export function payOwners(db: Kysely<DB>): Record<'checkoutPage' | 'cart' | 'charge', PayOwner> {
  // A page, cart or order never changes account, so a found owner is remembered (bounded; ids are random).
  const owners = new Map<string, string>();
  const read = async (
    table: 'checkout_pages' | 'carts' | 'orders',
    column: 'id' | 'uid',
    id: unknown,
  ): Promise<string | undefined> => {
    if (typeof id !== 'string' || !UUID.test(id)) return undefined;
    const key = `${table}:${id.toLowerCase()}`;
    const remembered = owners.get(key);
    if (remembered !== undefined) return remembered;
    const row = await db
      .selectFrom(table)
      .select('account_id')
      .where(column as 'id', '=', id)
      .executeTakeFirst();
    if (row) {
      if (owners.size >= REMEMBERED_OWNERS) owners.delete(owners.keys().next().value!);
      owners.set(key, row.account_id);
    }
    return row?.account_id;
  };
  const known = new WeakMap<FastifyRequest, Promise<string | undefined>>();
  const once =
    (resolve: PayOwner): PayOwner =>
    (request) => {
      let owner = known.get(request);
      if (!owner) known.set(request, (owner = resolve(request)));
      return owner;
    };
  const pathId = (request: FastifyRequest) => (request.params as { id?: unknown } | undefined)?.id;
  return {
    checkoutPage: once((request) =>
      read(
        'checkout_pages',
        'id',
        (request.body as { checkout_page_id?: unknown } | null | undefined)?.checkout_page_id,
      ),
    ),
    cart: once((request) => read('carts', 'id', pathId(request))),
    charge: once((request) => read('orders', 'uid', pathId(request))),
  };
}
