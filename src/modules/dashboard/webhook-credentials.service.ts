import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { businessRule, notFound } from '../../http/errors.ts';
import { randomToken, seal } from '../../lib/crypto.ts';

/**
 * How each inbound receiver authenticates its sender, where the sender posts, and what a rotation may keep:
 * gateway_b checks a signature with the current secret or the previous one (kept until the next rotation when asked);
 * the Basic receivers check only the current password (no grace); gateway_c's notices and the topic receiver's
 * messages are SNS-signed, configured on the server (TOPIC_ARNS), with no per-company secret.
 */
const RECEIVERS = [
  { receiver: 'gateway_a', auth: 'basic', path: () => '/webhooks' },
  { receiver: 'gateway_b', auth: 'signature', path: (companyId: number) => `/webhooks/${companyId}/gateway_b` },
  { receiver: 'gateway_c', auth: 'topic', path: () => '/webhooks/topic' },
  { receiver: 'bank', auth: 'basic', path: (companyId: number) => `/webhooks/${companyId}/bank` },
  { receiver: 'invoicing', auth: 'basic', path: () => '/webhooks/invoicing' },
  { receiver: 'topic', auth: 'topic', path: () => '/webhooks/topic' },
] as const;

export type ReceiverName = (typeof RECEIVERS)[number]['receiver'];
export const RECEIVER_NAMES = [
  'gateway_a',
  'gateway_b',
  'gateway_c',
  'bank',
  'invoicing',
  'topic',
] as const satisfies readonly ReceiverName[];
type Auth = (typeof RECEIVERS)[number]['auth'];

const GRACE: Record<Auth, 'previous_until_next_rotation' | 'none' | 'not_applicable'> = {
  signature: 'previous_until_next_rotation',
  basic: 'none',
  topic: 'not_applicable',
};

const receiverUrl = (publicUrl: string, path: string) => `${publicUrl}/api/v1${path}`;

/** Every receiver of every company of the account: its URL and its credential's status, never the secret. */
export async function listWebhookCredentials(
  db: Kysely<DB>,
  accountId: string,
  options: { publicUrl: string; topicConfigured: boolean },
) {
  const companies = await db
    .selectFrom('companies')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .orderBy('is_primary', 'desc')
    .orderBy('id')
    .execute();
  const stored = await db
    .selectFrom('company_webhook_credentials')
    .select(['company_id', 'receiver', 'username', 'previous_secret_encrypted', 'rotated_at', 'created_at'])
    .where('account_id', '=', accountId)
    .execute();
  return companies.flatMap((company) =>
    RECEIVERS.map(({ receiver, auth, path }) => {
      const row = stored.find((credential) => credential.company_id === company.id && credential.receiver === receiver);
      return {
        company_id: company.id,
        company_name: company.name,
        receiver,
        auth,
        url: receiverUrl(options.publicUrl, path(company.id)),
        configured: auth === 'topic' ? options.topicConfigured : row !== undefined,
        username: row?.username ?? null,
        set_at: (row?.rotated_at ?? row?.created_at)?.toISOString() ?? null,
        previous_secret_accepted: row?.previous_secret_encrypted != null,
        grace: GRACE[auth],
        rotatable: auth !== 'topic',
      };
    }),
  );
}

/**
 * The company's slug as a first username, unless the merchant file gave it to another company's credential of the
 * receiver (usernames are unique per receiver: the invoicing receiver finds the company by it): then with a suffix.
 */
async function freeUsername(db: Kysely<DB>, receiver: string, slug: string): Promise<string> {
  const taken = await db
    .selectFrom('company_webhook_credentials')
    .select('username')
    .where('receiver', '=', receiver)
    .where('username', '=', slug)
    .executeTakeFirst();
  return taken
    ? `${slug}-${randomToken(4)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '0')}`
    : slug;
}

/**
 * A new random secret (a password for the Basic receivers; their username is kept, or the company's slug, unique
 * across the service, for a first one). gateway_b keeps the old secret valid until the next rotation when
 * `keepPrevious`; the others stop accepting it at once. The secret is returned to be shown once.
 */
export async function rotateWebhookCredential(
  db: Kysely<DB>,
  masterKey: Buffer,
  scope: { accountId: string; companyId: number; receiver: ReceiverName; publicUrl: string },
  keepPrevious: boolean,
  now: Date,
) {
  const spec = RECEIVERS.find((receiver) => receiver.receiver === scope.receiver)!;
  if (spec.auth === 'topic')
    throw businessRule(`The ${scope.receiver} receiver checks SNS signatures: it has no secret to rotate`);
  const company = await db
    .selectFrom('companies')
    .select(['id', 'slug'])
    .where('account_id', '=', scope.accountId)
    .where('id', '=', scope.companyId)
    .executeTakeFirst();
  if (!company) throw notFound('Company');
  const secret = randomToken(32);
  const sealed = seal(masterKey, secret);
  const basic = spec.auth === 'basic';
  const row = await db.transaction().execute(async (trx) => {
    const stored = await trx
      .selectFrom('company_webhook_credentials')
      .select(['username', 'secret_encrypted'])
      .where('account_id', '=', scope.accountId)
      .where('company_id', '=', company.id)
      .where('receiver', '=', scope.receiver)
      .forUpdate()
      .executeTakeFirst();
    const previous = !basic && keepPrevious ? (stored?.secret_encrypted ?? null) : null;
    const username = basic ? (stored?.username ?? (await freeUsername(trx, scope.receiver, company.slug))) : null;
    if (!stored) {
      await trx
        .insertInto('company_webhook_credentials')
        .values({
          account_id: scope.accountId,
          company_id: company.id,
          receiver: scope.receiver,
          username,
          secret_encrypted: sealed,
          previous_secret_encrypted: null,
          rotated_at: now,
        })
        .execute();
    } else {
      await trx
        .updateTable('company_webhook_credentials')
        .set({ secret_encrypted: sealed, previous_secret_encrypted: previous, rotated_at: now })
        .where('account_id', '=', scope.accountId)
        .where('company_id', '=', company.id)
        .where('receiver', '=', scope.receiver)
        .execute();
    }
    return { username, previousKept: previous !== null };
  });
  return {
    receiver: scope.receiver,
    url: receiverUrl(scope.publicUrl, spec.path(company.id)),
    username: row.username,
    secret,
    previous_secret_accepted: row.previousKept,
  };
}
