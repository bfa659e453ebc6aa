import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { headerValue, type WebhookHeaders } from '../../gateways/wire.ts';
import { AppError } from '../../http/errors.ts';
import { constantTimeEqual, unseal } from '../../lib/crypto.ts';
import { findCredential, findCredentialByUsername, type CredentialReceiver } from './webhooks.repo.ts';

export type Tenant = { accountId: string; companyId: number };

const invalidCredentials = () => new AppError('invalid_credentials', 'Missing or invalid webhook credentials');
// Compared against when the company is unknown, so the answer time does not reveal which companies exist.
const DUMMY = 'no-such-company-credential';

export function basicCredentials(headers: WebhookHeaders): { username: string; password: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(headerValue(headers, 'authorization') ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** HTTP Basic against the company's stored credentials for `receiver`; 401 `invalid_credentials` otherwise. */
export async function authenticateBasic(
  db: Kysely<DB>,
  masterKey: Buffer,
  receiver: CredentialReceiver,
  companyId: number | null,
  headers: WebhookHeaders,
): Promise<Tenant> {
  const given = basicCredentials(headers);
  const row = companyId === null ? undefined : await findCredential(db, receiver, companyId);
  const password = row ? unseal(masterKey, row.secret_encrypted) : DUMMY;
  const usernameMatches = constantTimeEqual(given?.username ?? '', row?.username ?? DUMMY);
  const passwordMatches = constantTimeEqual(given?.password ?? '', password);
  if (!given || !row || !usernameMatches || !passwordMatches) throw invalidCredentials();
  return { accountId: row.account_id, companyId: row.company_id };
}

/** HTTP Basic where the username names the company (the invoicing receiver has no company in its path). */
export async function authenticateBasicByUsername(
  db: Kysely<DB>,
  masterKey: Buffer,
  receiver: CredentialReceiver,
  headers: WebhookHeaders,
): Promise<Tenant> {
  const given = basicCredentials(headers);
  const row = given ? await findCredentialByUsername(db, receiver, given.username) : undefined;
  const passwordMatches = constantTimeEqual(
    given?.password ?? '',
    row ? unseal(masterKey, row.secret_encrypted) : DUMMY,
  );
  if (!given || !row || !passwordMatches) throw invalidCredentials();
  return { accountId: row.account_id, companyId: row.company_id };
}

/** The company's current signing secret and, during a rotation, the previous one. */
export async function signingSecrets(
  db: Kysely<DB>,
  masterKey: Buffer,
  receiver: CredentialReceiver,
  companyId: number,
): Promise<{ tenant: Tenant; secrets: string[] } | undefined> {
  const row = await findCredential(db, receiver, companyId);
  if (!row) return undefined;
  const secrets = [unseal(masterKey, row.secret_encrypted)];
  if (row.previous_secret_encrypted) secrets.push(unseal(masterKey, row.previous_secret_encrypted));
  return { tenant: { accountId: row.account_id, companyId: row.company_id }, secrets };
}
