import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** The owner and gateway of a live checkout page, whatever its account (the caller checks access). */
export function findCheckoutPageOwner(db: Kysely<DB>, pageId: string) {
  return db
    .selectFrom('checkout_pages')
    .select(['account_id', 'company_id', 'gateway'])
    .where('id', '=', pageId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The owner of a cart and the gateway of its cart page, whatever its account (the caller checks access). */
export function findCartOwner(db: Kysely<DB>, cartId: string) {
  return db
    .selectFrom('carts as c')
    .innerJoin('cart_pages as cp', (join) =>
      join.onRef('cp.id', '=', 'c.cart_page_id').onRef('cp.account_id', '=', 'c.account_id'),
    )
    .select(['c.account_id', 'c.company_id', 'cp.gateway'])
    .where('c.id', '=', cartId)
    .executeTakeFirst();
}

/** The company's enabled gateway_c integration: its encryption (publishable) key and sealed api key. */
export function findGatewayCIntegration(db: Kysely<DB>, accountId: string, companyId: number) {
  return db
    .selectFrom('company_gateways')
    .select(['public_key', 'secret_encrypted'])
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('gateway', '=', 'gateway_c')
    .where('enabled', '=', true)
    .executeTakeFirst();
}

export type IssuedKeyRow = {
  accountId: string;
  companyId: number;
  gatewayKeyId: number;
  publicKeyPem: string;
  createdAt: Date;
  expiresAt: Date;
};

/**
 * Records a key handed to a buyer. gateway_c numbers its keys itself; an id it hands out again (after
 * forgetting the old key) replaces the stale row, which no longer decrypts anything there.
 */
export async function saveIssuedKey(db: Kysely<DB>, key: IssuedKeyRow): Promise<void> {
  const fresh = {
    public_key_pem: key.publicKeyPem,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    consumed_at: null,
  };
  await db
    .insertInto('card_hash_keys')
    .values({ account_id: key.accountId, company_id: key.companyId, gateway_key_id: key.gatewayKeyId, ...fresh })
    .onConflict((conflict) => conflict.columns(['account_id', 'company_id', 'gateway_key_id']).doUpdateSet(fresh))
    .execute();
}

export type KeyRef = { accountId: string; companyId: number; gatewayKeyId: number };

/** Marks the key used if it is still unused and unexpired; undefined when another caller got there first or it cannot be used. */
export function markKeyConsumed(db: Kysely<DB>, ref: KeyRef, now: Date) {
  return db
    .updateTable('card_hash_keys')
    .set({ consumed_at: now })
    .where('account_id', '=', ref.accountId)
    .where('company_id', '=', ref.companyId)
    .where('gateway_key_id', '=', ref.gatewayKeyId)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('gateway_key_id')
    .executeTakeFirst();
}

export function findKey(db: Kysely<DB>, ref: KeyRef) {
  return db
    .selectFrom('card_hash_keys')
    .select(['expires_at', 'consumed_at'])
    .where('account_id', '=', ref.accountId)
    .where('company_id', '=', ref.companyId)
    .where('gateway_key_id', '=', ref.gatewayKeyId)
    .executeTakeFirst();
}
