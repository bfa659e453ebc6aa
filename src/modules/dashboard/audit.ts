import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** The audited actions: every sign-in and every act on money, keys, endpoints or users. */
export type AuditAction =
  | 'user.signed_in'
  | 'user.sign_in_failed'
  | 'user.signed_out_everywhere'
  | 'user.invited'
  | 'user.role_changed'
  | 'user.removed'
  | 'user.password_set'
  | 'user.totp_enabled'
  | 'user.totp_disabled'
  | 'refund.created'
  | 'api_key.created'
  | 'api_key.rotated'
  | 'api_key.revoked'
  | 'notification_endpoint.created'
  | 'notification_endpoint.updated'
  | 'notification_endpoint.secret_rotated'
  | 'orders.exported'
  | 'settings.company_updated'
  | 'settings.gateway_updated'
  | 'allowed_hosts.updated'
  | 'webhook_credential.rotated'
  | 'order.cancelled'
  | 'order.notification_resent'
  | 'subscription.cancelled'
  | 'notification_delivery.redelivered';

export type AuditEntry = {
  accountId: string;
  userId: string | null;
  actor: string;
  action: AuditAction;
  subject?: string;
  data?: Record<string, unknown>;
  ip?: string;
  at: Date;
};

export async function recordAudit(db: Kysely<DB>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      account_id: entry.accountId,
      user_id: entry.userId,
      actor: entry.actor,
      action: entry.action,
      subject: entry.subject ?? null,
      data: JSON.stringify(entry.data ?? {}),
      ip: entry.ip ?? null,
      created_at: entry.at,
    })
    .execute();
}

export type AuditRow = {
  id: number;
  actor: string;
  action: string;
  subject: string | null;
  data: unknown;
  ip: string | null;
  created_at: Date;
};

/** The account's entries, newest first, `limit` at a time before the id `before`; or those about one subject. */
export async function listAudit(
  db: Kysely<DB>,
  accountId: string,
  options: { before?: number; limit: number; subject?: string },
): Promise<AuditRow[]> {
  let query = db
    .selectFrom('audit_events')
    .select(['id', 'actor', 'action', 'subject', 'data', 'ip', 'created_at'])
    .where('account_id', '=', accountId);
  if (options.before !== undefined) query = query.where('id', '<', options.before);
  if (options.subject !== undefined) query = query.where('subject', '=', options.subject);
  return (await query.orderBy('id', 'desc').limit(options.limit).execute()) as AuditRow[];
}
