import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Accounts } from '../../db/schema.ts';
import { constantTimeEqual } from '../../lib/crypto.ts';
import { generateKey, type IssuedKey, storeKey } from '../accounts/index.ts';
import { validateMerchantDocument, type MerchantDocument } from './merchant-document.ts';
import { applyCatalog } from './merchant-apply.catalog.ts';
import {
  applyCompanySettings,
  assertCompanySlugsAvailable,
  demoteOtherPrimaries,
  upsertCompany,
} from './merchant-apply.company.ts';
import { applyNotificationEndpoints } from './merchant-apply.notifications.ts';
import { applyPages } from './merchant-apply.pages.ts';
import { changedColumns, hasChanges, MerchantApplyError, type Trx } from './merchant-apply.support.ts';

export { MerchantApplyError } from './merchant-apply.support.ts';

/** What `checkout apply` prints: ids by the document's names (coupon codes upper-cased, as stored). */
export type ApplyResult = {
  account_id: string;
  /** The plaintext of a key stored by this apply; null otherwise, since only hashes are kept. */
  api_key: string | null;
  companies: Record<string, number>;
  products: Record<string, number>;
  payment_plans: Record<string, number>;
  coupons: Record<string, number>;
  checkout_pages: Record<string, string>;
  cart_pages: Record<string, string>;
  /** Notification endpoint ids by url. */
  notification_endpoints: Record<string, string>;
  /** Signing secrets of the endpoints created by this apply, by url; absent when none was created. */
  notification_secrets?: Record<string, string>;
  created: boolean;
};

/**
 * - `apiKey`: the key to store (its plaintext is returned) if its key id is not stored yet; on a new
 *   account it replaces the generated one.
 * - `rotateKey`: on an existing account, store a newly generated key (or `apiKey`, when given).
 *   Earlier keys stay valid; revoke them with the key rotation command.
 */
/**
 * `restoreKey`: a given `apiKey` revoked or expired since (by a rotation) works again; only the demo seed asks it.
 * `now`: the caller's clock time, written as the rows' creation and update time.
 */
export type ApplyOptions = { apiKey?: IssuedKey; rotateKey?: boolean; restoreKey?: boolean; now: Date };

/**
 * Creates or updates the account, companies and catalog a document declares, in one transaction.
 * Rows are matched by natural keys and rewritten only where they differ, so applying the same
 * document again changes nothing; rows the document does not name are left alone, except the
 * child sets it lists in full (plan taxes, coupon products, page products and plans, schedules).
 */
export async function applyMerchant(
  database: Database,
  masterKey: Buffer,
  document: MerchantDocument,
  options: ApplyOptions,
): Promise<ApplyResult> {
  // Documents built in code skip parseMerchantDocument; the same rules must hold before anything is written.
  const merchant = validateMerchantDocument(document);
  return database.db.transaction().execute(async (trx) => {
    // Two applies of one account (two deploy jobs) run one after the other: the second finds what the first created.
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`merchant-apply:${merchant.account.slug}`}))`.execute(trx);
    const { now } = options;
    const existing = await trx
      .selectFrom('accounts')
      .selectAll()
      .where('slug', '=', merchant.account.slug)
      .executeTakeFirst();
    const companySlugs = merchant.companies.map((company) => company.slug);
    await assertCompanySlugsAvailable(trx, existing?.id, companySlugs);

    const accountId = await upsertAccount(trx, merchant.account, existing, now);
    const apiKey = await storeRequestedKey(trx, accountId, !existing, options);

    const result: ApplyResult = {
      account_id: accountId,
      api_key: apiKey,
      companies: {},
      products: {},
      payment_plans: {},
      coupons: {},
      checkout_pages: {},
      cart_pages: {},
      notification_endpoints: {},
      created: !existing,
    };
    const primarySlug = (merchant.companies.find((company) => company.primary === true) ?? merchant.companies[0]!).slug;
    await demoteOtherPrimaries(trx, accountId, primarySlug, now);
    for (const company of merchant.companies) {
      const companyId = await upsertCompany(trx, accountId, company, company.slug === primarySlug, now);
      const scope = { trx, accountId, companyId, now };
      await applyCompanySettings(scope, masterKey, company);
      const catalog = await applyCatalog(scope, company);
      const pages = await applyPages(scope, company, catalog);
      result.companies[company.slug] = companyId;
      Object.assign(result.products, Object.fromEntries(catalog.products));
      Object.assign(result.payment_plans, Object.fromEntries(catalog.paymentPlans));
      Object.assign(result.coupons, Object.fromEntries(catalog.coupons));
      Object.assign(result.checkout_pages, Object.fromEntries(pages.checkoutPages));
      Object.assign(result.cart_pages, Object.fromEntries(pages.cartPages));
    }
    const endpoints = await applyNotificationEndpoints(
      { trx, accountId, now },
      masterKey,
      merchant.notification_endpoints ?? [],
      new Map(Object.entries(result.companies)),
    );
    result.notification_endpoints = endpoints.ids;
    if (Object.keys(endpoints.secrets).length > 0) result.notification_secrets = endpoints.secrets;
    return result;
  });
}

/** The account row: created with a new id, or updated where the document differs. */
async function upsertAccount(
  trx: Trx,
  account: MerchantDocument['account'],
  existing: Selectable<Accounts> | undefined,
  now: Date,
): Promise<string> {
  // Allowed hosts left out of the file keep what the dashboard set.
  const desired = {
    name: account.name,
    ...(account.allowed_hosts ? { allowed_hosts: [...new Set(account.allowed_hosts)] } : {}),
  };
  if (!existing) {
    const id = randomUUID();
    await trx
      .insertInto('accounts')
      .values({ allowed_hosts: [], ...desired, id, slug: account.slug })
      .execute();
    return id;
  }
  const changed = changedColumns(existing, desired);
  if (hasChanges(changed))
    await trx
      .updateTable('accounts')
      .set({ ...changed, updated_at: now })
      .where('id', '=', existing.id)
      .execute();
  return existing.id;
}

/** Stores the key this apply calls for, if any, and returns its plaintext, the only time it can be shown. */
async function storeRequestedKey(
  trx: Trx,
  accountId: string,
  created: boolean,
  options: ApplyOptions,
): Promise<string | null> {
  const key = options.apiKey ?? (created || options.rotateKey ? generateKey() : undefined);
  if (!key) return null;
  const stored = await trx
    .selectFrom('api_keys')
    .select(['account_id', 'key_hash'])
    .where('key_id', '=', key.keyId)
    .executeTakeFirst();
  if (stored) {
    // PGlite returns bytea as a Uint8Array, not a Buffer, so compare through the shared helper.
    if (stored.account_id === accountId && constantTimeEqual(stored.key_hash, key.hash)) {
      if (options.restoreKey) {
        await trx
          .updateTable('api_keys')
          .set({ revoked_at: null, expires_at: null })
          .where('key_id', '=', key.keyId)
          .where((eb) => eb.or([eb('revoked_at', 'is not', null), eb('expires_at', 'is not', null)]))
          .execute();
      }
      return null;
    }
    throw new MerchantApplyError(`API key id ${key.keyId} is already in use by another key`);
  }
  await storeKey(trx, accountId, key, created ? 'default' : 'apply');
  return key.plaintext;
}
