import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';

/**
 * Failed sign-ins are counted in the database (so every API process counts the same) over a 15-minute window:
 * 5 per e-mail address and 30 per client IP. Past either, sign-in answers 429 until the oldest failure leaves the
 * window, whatever the password, so guessing a password costs at least three minutes a try per account.
 */
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
export const THROTTLE_LIMITS = { email: 5, ip: 30 } as const;

const subjects = (email: string, ip: string) => ({ email: `email:${email.trim().toLowerCase()}`, ip: `ip:${ip}` });

export async function assertSignInAllowed(db: Kysely<DB>, email: string, ip: string, now: Date): Promise<void> {
  const since = new Date(now.getTime() - THROTTLE_WINDOW_MS);
  const names = subjects(email, ip);
  const rows = await db
    .selectFrom('dashboard_sign_in_failures')
    .select(['subject', (eb) => eb.fn.countAll<number>().as('failures'), (eb) => eb.fn.min('failed_at').as('oldest')])
    .where('subject', 'in', [names.email, names.ip])
    .where('failed_at', '>', since)
    .groupBy('subject')
    .execute();
  for (const row of rows) {
    const limit = row.subject === names.email ? THROTTLE_LIMITS.email : THROTTLE_LIMITS.ip;
    if (Number(row.failures) < limit) continue;
    const oldest = new Date(row.oldest as unknown as Date).getTime();
    const retryAfter = Math.max(1, Math.ceil((oldest + THROTTLE_WINDOW_MS - now.getTime()) / 1000));
    throw new AppError('rate_limited', `Too many failed sign-ins; retry after ${retryAfter} seconds`, [], {
      'retry-after': String(retryAfter),
    });
  }
}

export async function recordSignInFailure(db: Kysely<DB>, email: string, ip: string, now: Date): Promise<void> {
  const names = subjects(email, ip);
  await db
    .insertInto('dashboard_sign_in_failures')
    .values([
      { subject: names.email, failed_at: now },
      { subject: names.ip, failed_at: now },
    ])
    .execute();
  // Old rows are of no use: each failure clears what left the window long ago.
  await db
    .deleteFrom('dashboard_sign_in_failures')
    .where('failed_at', '<', new Date(now.getTime() - 2 * THROTTLE_WINDOW_MS))
    .execute();
}
