import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { seal, unseal } from '../../lib/crypto.ts';
import { toCents, toMajor } from '../../lib/money.ts';
import { GATEWAYS, type CompanySettingsInput, type GatewayInput, type GatewayName } from './settings.schemas.ts';

const COMPANY_COLUMNS = [
  'id',
  'slug',
  'is_primary',
  'name',
  'legal_name',
  'document',
  'street',
  'street_number',
  'complement',
  'district',
  'postal_code',
  'city',
  'state',
  'time_zone',
  'pix_expiration_minutes',
  'boleto_due_days',
  'default_fine_type',
  'default_fine_cents',
  'default_fine_tax',
  'default_late_interest_cents',
  'default_late_interest_tax',
  'updated_at',
] as const;

type CompanyRow = Pick<Selectable<DB['companies']>, (typeof COMPANY_COLUMNS)[number]>;

const emptyToNull = (value: string | undefined) => (value === undefined ? undefined : value.trim() || null);

function companyView(row: CompanyRow) {
  return {
    id: Number(row.id),
    slug: row.slug,
    primary: Boolean(row.is_primary),
    name: row.name,
    legal_name: row.legal_name,
    document: row.document,
    address: {
      street: row.street,
      street_number: row.street_number,
      complement: row.complement,
      district: row.district,
      postal_code: row.postal_code,
      city: String(row.city),
      state: row.state,
    },
    time_zone: String(row.time_zone),
    pix_expiration_minutes: Number(row.pix_expiration_minutes),
    boleto_due_days: Number(row.boleto_due_days),
    fine_terms: {
      fine_type: row.default_fine_type === 'fixed' ? ('fixed' as const) : ('percentage' as const),
      fine: toMajor(Number(row.default_fine_cents)),
      fine_tax: Number(row.default_fine_tax),
      late_interest: toMajor(Number(row.default_late_interest_cents)),
      late_interest_tax: Number(row.default_late_interest_tax),
    },
    updated_at: row.updated_at.toISOString(),
  };
}
export type CompanySettings = ReturnType<typeof companyView>;

/** The account's companies, the primary first. */
export async function listCompanySettings(db: Kysely<DB>, accountId: string): Promise<CompanySettings[]> {
  const rows = await db
    .selectFrom('companies')
    .select(COMPANY_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('is_primary', 'desc')
    .orderBy('id')
    .execute();
  return rows.map((row) => companyView(row));
}

/** Writes the given fields; undefined when the company is not the account's. */
export async function updateCompanySettings(
  db: Kysely<DB>,
  accountId: string,
  companyId: number,
  input: CompanySettingsInput,
  now: Date,
): Promise<CompanySettings | undefined> {
  const { address, fine_terms: terms } = input;
  const values = {
    name: input.name,
    legal_name: emptyToNull(input.legal_name),
    document: input.document?.toUpperCase(),
    city: input.city,
    state: input.state,
    time_zone: input.time_zone,
    pix_expiration_minutes: input.pix_expiration_minutes,
    boleto_due_days: input.boleto_due_days,
    street: emptyToNull(address?.street),
    street_number: emptyToNull(address?.street_number),
    complement: emptyToNull(address?.complement),
    district: emptyToNull(address?.district),
    postal_code: emptyToNull(address?.postal_code),
    default_fine_type: terms?.fine_type,
    default_fine_cents: terms?.fine === undefined ? undefined : toCents(terms.fine),
    default_fine_tax: terms?.fine_tax,
    default_late_interest_cents: terms?.late_interest === undefined ? undefined : toCents(terms.late_interest),
    default_late_interest_tax: terms?.late_interest_tax,
  };
  const row = await db
    .updateTable('companies')
    .set({ ...Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)), updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', companyId)
    .returning(COMPANY_COLUMNS)
    .executeTakeFirst();
  return row ? companyView(row) : undefined;
}

export async function companyBelongsTo(db: Kysely<DB>, accountId: string, companyId: number): Promise<boolean> {
  const row = await db
    .selectFrom('companies')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', companyId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Only the last four characters of a secret long enough for them not to give it away. */
function lastFour(masterKey: Buffer, sealed: string | null): string | null {
  if (sealed === null) return null;
  const secret = unseal(masterKey, sealed);
  return secret.length >= 12 ? secret.slice(-4) : null;
}

/** Every gateway of the company, configured or not, with its secret's status. */
export async function listGateways(db: Kysely<DB>, masterKey: Buffer, accountId: string, companyId: number) {
  const rows = await db
    .selectFrom('company_gateways')
    .select(['gateway', 'enabled', 'public_key', 'secret_encrypted', 'secret_set_at'])
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .execute();
  return GATEWAYS.map((gateway) => {
    const row = rows.find((stored) => stored.gateway === gateway);
    return {
      gateway,
      configured: row !== undefined,
      enabled: row?.enabled ?? false,
      public_key: row?.public_key ?? null,
      secret_last4: lastFour(masterKey, row?.secret_encrypted ?? null),
      secret_set_at: row?.secret_set_at?.toISOString() ?? null,
    };
  });
}

/** Creates or changes a gateway's credentials; the secret is sealed with the master key, and kept when omitted. */
export async function saveGateway(
  db: Kysely<DB>,
  masterKey: Buffer,
  scope: { accountId: string; companyId: number; gateway: GatewayName },
  input: GatewayInput,
  now: Date,
): Promise<void> {
  const secret =
    input.secret_key === undefined ? {} : { secret_encrypted: seal(masterKey, input.secret_key), secret_set_at: now };
  const changes = {
    ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
    ...(input.public_key === undefined ? {} : { public_key: input.public_key }),
    ...secret,
  };
  await db
    .insertInto('company_gateways')
    .values({
      account_id: scope.accountId,
      company_id: scope.companyId,
      gateway: scope.gateway,
      enabled: input.enabled ?? true,
      public_key: input.public_key ?? null,
      ...secret,
    })
    .onConflict((conflict) =>
      conflict.columns(['account_id', 'company_id', 'gateway']).doUpdateSet({ ...changes, updated_at: now }),
    )
    .execute();
}
