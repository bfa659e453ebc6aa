import { isDeepStrictEqual } from 'node:util';
import { seal } from '../../lib/crypto.ts';
import type { CompanyDocument } from './merchant-document.ts';
import {
  asJsonColumns,
  changedColumns,
  hasChanges,
  MerchantApplyError,
  sealedEquals,
  statedOnly,
  type CompanyScope,
  type Trx,
} from './merchant-apply.support.ts';

/** Refuses, before anything is written, company slugs that another account already owns. */
export async function assertCompanySlugsAvailable(
  trx: Trx,
  accountId: string | undefined,
  slugs: string[],
): Promise<void> {
  const owned = await trx.selectFrom('companies').select(['slug', 'account_id']).where('slug', 'in', slugs).execute();
  const taken = owned.filter((company) => company.account_id !== accountId).map((company) => company.slug);
  if (taken.length > 0)
    throw new MerchantApplyError(`company slug already belongs to another account: ${taken.join(', ')}`);
}

/** Clears the primary flag on the account's other companies first: at most one may hold it at any time. */
export async function demoteOtherPrimaries(trx: Trx, accountId: string, primarySlug: string, now: Date): Promise<void> {
  await trx
    .updateTable('companies')
    .set({ is_primary: false, updated_at: now })
    .where('account_id', '=', accountId)
    .where('is_primary', '=', true)
    .where('slug', '<>', primarySlug)
    .execute();
}

export async function upsertCompany(
  trx: Trx,
  accountId: string,
  company: CompanyDocument,
  isPrimary: boolean,
  now: Date,
): Promise<number> {
  // A new company takes the defaults of what the file leaves out; a stored one keeps them, so a field set in the
  // dashboard survives an apply of a file that does not state it.
  const stated = statedOnly({
    legal_name: company.legal_name,
    document: company.document?.toUpperCase(),
    city: company.city,
    state: company.state,
    time_zone: company.time_zone,
    pix_key: company.pix_key,
    pix_expiration_minutes: company.pix_expiration_minutes,
    boleto_due_days: company.boleto_due_days,
    enable_two_cards: company.enable_two_cards,
  });
  const desired = { name: company.name, is_primary: isPrimary, ...stated };
  const stored = await trx
    .selectFrom('companies')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('slug', '=', company.slug)
    .executeTakeFirst();
  if (!stored) {
    const row = await trx
      .insertInto('companies')
      .values({ ...NEW_COMPANY_DEFAULTS, ...desired, account_id: accountId, slug: company.slug })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }
  const changed = changedColumns(stored, desired);
  if (hasChanges(changed)) {
    await trx
      .updateTable('companies')
      .set({ ...changed, updated_at: now })
      .where('id', '=', stored.id)
      .execute();
  }
  return stored.id;
}

const NEW_COMPANY_DEFAULTS = {
  legal_name: null,
  document: null,
  city: 'SAO PAULO',
  state: null,
  time_zone: 'America/Sao_Paulo',
  pix_key: null,
  pix_expiration_minutes: 30,
  boleto_due_days: 3,
  enable_two_cards: false,
};

/** Gateways, webhook credentials, schedules and sellers: the company's operational settings. */
export async function applyCompanySettings(
  scope: CompanyScope,
  masterKey: Buffer,
  company: CompanyDocument,
): Promise<void> {
  for (const gateway of company.gateways ?? []) await upsertGateway(scope, masterKey, gateway);
  for (const credential of company.webhook_credentials ?? [])
    await upsertWebhookCredential(scope, masterKey, credential);
  await replaceSchedules(scope, company.schedules ?? []);
  await addMissingSellers(
    scope,
    (company.sellers ?? []).map((seller) => seller.name),
  );
}

type GatewayDocument = NonNullable<CompanyDocument['gateways']>[number];

async function upsertGateway(
  { trx, accountId, companyId, now }: CompanyScope,
  masterKey: Buffer,
  gateway: GatewayDocument,
): Promise<void> {
  const stored = await trx
    .selectFrom('company_gateways')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('gateway', '=', gateway.gateway)
    .executeTakeFirst();
  const storedSecret = stored?.secret_encrypted ?? null;
  // An omitted secret keeps the stored one; an unchanged secret keeps its ciphertext (sealing again would differ).
  const secret =
    gateway.secret_key === undefined || sealedEquals(masterKey, storedSecret, gateway.secret_key)
      ? storedSecret
      : seal(masterKey, gateway.secret_key);
  const desired = statedOnly({
    enabled: gateway.enabled,
    public_key: gateway.public_key,
    secret_encrypted: secret,
    settings: gateway.settings,
  });
  if (!stored) {
    const values = {
      enabled: true,
      public_key: null,
      settings: {},
      ...desired,
      account_id: accountId,
      company_id: companyId,
      gateway: gateway.gateway,
      secret_set_at: secret === null ? null : now,
    };
    await trx
      .insertInto('company_gateways')
      .values(asJsonColumns(values, ['settings']))
      .execute();
    return;
  }
  const changed = changedColumns(stored, desired);
  if (!hasChanges(changed)) return;
  const secretSet = 'secret_encrypted' in changed ? { secret_set_at: secret === null ? null : now } : {};
  await trx
    .updateTable('company_gateways')
    .set({ ...asJsonColumns(changed, ['settings']), ...secretSet, updated_at: now })
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('gateway', '=', gateway.gateway)
    .execute();
}

type WebhookCredentialDocument = NonNullable<CompanyDocument['webhook_credentials']>[number];

async function upsertWebhookCredential(
  scope: CompanyScope,
  masterKey: Buffer,
  credential: WebhookCredentialDocument,
): Promise<void> {
  const { trx, accountId, companyId, now } = scope;
  const username = credential.username ?? null;
  if (username !== null) await assertUsernameAvailable(scope, credential.receiver, username);
  // The document rules guarantee one of the two: a password for Basic receivers, a signing secret otherwise.
  const secret = credential.password ?? credential.secret ?? '';
  const stored = await trx
    .selectFrom('company_webhook_credentials')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('receiver', '=', credential.receiver)
    .executeTakeFirst();
  if (!stored) {
    const values = {
      account_id: accountId,
      company_id: companyId,
      receiver: credential.receiver,
      username,
      secret_encrypted: seal(masterKey, secret),
    };
    await trx.insertInto('company_webhook_credentials').values(values).execute();
    return;
  }
  const secretChanged = !sealedEquals(masterKey, stored.secret_encrypted, secret);
  // The previous secret stays valid during a rotation, so senders still signing with it are not rejected.
  const rotation = secretChanged
    ? { secret_encrypted: seal(masterKey, secret), previous_secret_encrypted: stored.secret_encrypted, rotated_at: now }
    : {};
  const changed = { ...changedColumns(stored, { username }), ...rotation };
  if (!hasChanges(changed)) return;
  await trx
    .updateTable('company_webhook_credentials')
    .set(changed)
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('receiver', '=', credential.receiver)
    .execute();
}

/** A receiver's Basic username identifies the company for the invoicing receiver, so it is unique across tenants. */
async function assertUsernameAvailable(
  { trx, companyId }: CompanyScope,
  receiver: string,
  username: string,
): Promise<void> {
  const other = await trx
    .selectFrom('company_webhook_credentials')
    .select('company_id')
    .where('receiver', '=', receiver)
    .where('username', '=', username)
    .where('company_id', '<>', companyId)
    .executeTakeFirst();
  if (other)
    throw new MerchantApplyError(
      `webhook username "${username}" for receiver ${receiver} is already used by another company`,
    );
}

type ScheduleDocument = NonNullable<CompanyDocument['schedules']>[number];

/** Rewrites the schedule only when it differs, so re-applying the same document keeps the rows. */
async function replaceSchedules(
  { trx, accountId, companyId }: CompanyScope,
  schedules: ScheduleDocument[],
): Promise<void> {
  const desired = schedules
    .map((s) => ({
      weekday: s.weekday,
      starts_at: `${s.starts_at}:00`,
      ends_at: `${s.ends_at}:00`,
      slot_minutes: s.slot_minutes ?? 60,
    }))
    .sort(compareSchedules);
  const stored = await trx
    .selectFrom('company_schedules')
    .select(['weekday', 'starts_at', 'ends_at', 'slot_minutes'])
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .execute();
  if (isDeepStrictEqual(stored.sort(compareSchedules), desired)) return;
  await trx
    .deleteFrom('company_schedules')
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .execute();
  if (desired.length > 0) {
    await trx
      .insertInto('company_schedules')
      .values(desired.map((row) => ({ ...row, account_id: accountId, company_id: companyId })))
      .execute();
  }
}

function compareSchedules(
  a: { weekday: number; starts_at: string },
  b: { weekday: number; starts_at: string },
): number {
  return a.weekday - b.weekday || a.starts_at.localeCompare(b.starts_at);
}

/** Sellers are matched by name and never removed: orders keep referring to them. */
async function addMissingSellers({ trx, accountId, companyId }: CompanyScope, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const stored = await trx
    .selectFrom('sellers')
    .select('name')
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .execute();
  const known = new Set(stored.map((seller) => seller.name));
  const missing = names.filter((name) => !known.has(name));
  if (missing.length > 0) {
    await trx
      .insertInto('sellers')
      .values(missing.map((name) => ({ account_id: accountId, company_id: companyId, name })))
      .execute();
  }
}
