import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { randomToken, seal, unseal } from '../../lib/crypto.ts';
import {
  findEndpointById,
  findEndpointByUrl,
  insertEndpoint,
  lockEndpoint,
  updateEndpoint,
  type EndpointRow,
} from './endpoints.repo.ts';
import { ID_PREFIX, isNotificationEventType, NOTIFICATION_EVENT_TYPES } from './event-types.ts';

/** Input the operator or the merchant file got wrong: the message names the problem, never a secret. */
export class NotificationInputError extends Error {
  override readonly name = 'NotificationInputError';
}

/** The account already has an endpoint at this URL (found by a request that raced the route's own check). */
export class DuplicateEndpointUrlError extends NotificationInputError {}

export type EndpointInput = {
  accountId: string;
  companyId?: number | null;
  url: string;
  /** Empty or omitted: every event type. */
  eventTypes?: readonly string[];
  enabled?: boolean;
  description?: string | null;
};

export const newEndpointId = () => `${ID_PREFIX.endpoint}${randomBytes(12).toString('hex')}`;
export const newSigningSecret = () => `whsec_${randomToken(32)}`;

/** Why a URL cannot be an endpoint, or undefined. Where it may point (private networks) is decided at delivery. */
export function endpointUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  // Checked on the text too: the parser accepts `HTTP://` or leading spaces, which the table's CHECK refuses.
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !/^https?:\/\//.test(url))
    return 'must be an http or https URL';
  // The parser also drops trailing spaces and control characters: stored, they would make a second URL of the same address.
  if (/[\s\u0000-\u001f\u007f]/.test(url)) return 'must not contain spaces or control characters';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (url.length > 2048) return 'is longer than 2048 characters';
  return undefined;
}

export function eventTypesProblem(types: readonly string[]): string | undefined {
  const unknown = types.filter((type) => !isNotificationEventType(type));
  return unknown.length
    ? `unknown event type ${unknown.join(', ')} (known: ${NOTIFICATION_EVENT_TYPES.join(', ')})`
    : undefined;
}

function checkInput(input: Pick<EndpointInput, 'url' | 'eventTypes'>): void {
  const urlProblem = endpointUrlProblem(input.url);
  if (urlProblem) throw new NotificationInputError(`url ${urlProblem}`);
  const typesProblem = eventTypesProblem(input.eventTypes ?? []);
  if (typesProblem) throw new NotificationInputError(typesProblem);
}

/** Creates an endpoint with a new signing secret; the plaintext secret is returned once and stored sealed. */
export async function createEndpoint(
  db: Kysely<DB>,
  masterKey: Buffer,
  input: EndpointInput,
  now: Date,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  checkInput(input);
  const existing = await findEndpointByUrl(db, input.accountId, input.url);
  if (existing) throw new DuplicateEndpointUrlError(`${input.url} is already endpoint ${existing.id} of this account`);
  const secret = newSigningSecret();
  const endpoint = await insertEndpoint(db, {
    id: newEndpointId(),
    account_id: input.accountId,
    company_id: input.companyId ?? null,
    url: input.url,
    event_types: [...new Set(input.eventTypes ?? [])],
    enabled: input.enabled ?? true,
    description: input.description ?? null,
    secret_encrypted: seal(masterKey, secret),
    created_at: now,
    updated_at: now,
  });
  return { endpoint, secret };
}

/** Rewrites the endpoint's settings (never its secret); the caller resolved the account. */
export async function changeEndpoint(
  db: Kysely<DB>,
  endpoint: EndpointRow,
  input: Omit<EndpointInput, 'accountId'>,
  now: Date,
): Promise<EndpointRow> {
  checkInput(input);
  const changed = await updateEndpoint(db, endpoint.account_id, endpoint.id, {
    company_id: input.companyId ?? null,
    url: input.url,
    event_types: [...new Set(input.eventTypes ?? [])],
    enabled: input.enabled ?? true,
    description: input.description ?? null,
    updated_at: now,
  });
  return changed!;
}

export async function setEndpointEnabled(
  db: Kysely<DB>,
  id: string,
  enabled: boolean,
  now: Date,
): Promise<EndpointRow> {
  const endpoint = await findEndpointById(db, id);
  if (!endpoint) throw new NotificationInputError(`no notification endpoint ${id}`);
  return (await updateEndpoint(db, endpoint.account_id, id, { enabled, updated_at: now }))!;
}

/**
 * A new signing secret; the current one keeps signing (a second `v1`) for `graceSeconds`, so the merchant
 * can switch without losing a delivery. Rotating again inside the grace period drops the oldest secret.
 */
export async function rotateEndpointSecret(
  db: Kysely<DB>,
  masterKey: Buffer,
  id: string,
  graceSeconds: number,
  now: Date,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  return db.transaction().execute(async (trx) => {
    const endpoint = await lockEndpoint(trx, id);
    if (!endpoint) throw new NotificationInputError(`no notification endpoint ${id}`);
    const secret = newSigningSecret();
    const updated = await updateEndpoint(trx, endpoint.account_id, id, {
      secret_encrypted: seal(masterKey, secret),
      previous_secret_encrypted: graceSeconds > 0 ? endpoint.secret_encrypted : null,
      previous_secret_expires_at: graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null,
      updated_at: now,
    });
    return { endpoint: updated!, secret };
  });
}

/** The secrets that sign a delivery now: the current one, then the previous one while its grace period lasts. */
export function signingSecrets(
  masterKey: Buffer,
  endpoint: Pick<EndpointRow, 'secret_encrypted' | 'previous_secret_encrypted' | 'previous_secret_expires_at'>,
  now: Date,
): string[] {
  const secrets = [unseal(masterKey, endpoint.secret_encrypted)];
  if (
    endpoint.previous_secret_encrypted &&
    endpoint.previous_secret_expires_at &&
    endpoint.previous_secret_expires_at > now
  ) {
    secrets.push(unseal(masterKey, endpoint.previous_secret_encrypted));
  }
  return secrets;
}

/** An endpoint as the CLI and `apply` show it: no secrets; the rotation's end only while its grace period lasts. */
export function endpointView(endpoint: EndpointRow, now: Date) {
  const graceEnds = endpoint.previous_secret_expires_at;
  return {
    id: endpoint.id,
    url: endpoint.url,
    company_id: endpoint.company_id,
    events: endpoint.event_types.length ? endpoint.event_types : ['*'],
    enabled: endpoint.enabled,
    description: endpoint.description,
    secret_rotation_ends_at: graceEnds && graceEnds > now ? graceEnds.toISOString() : null,
    created_at: endpoint.created_at.toISOString(),
  };
}
