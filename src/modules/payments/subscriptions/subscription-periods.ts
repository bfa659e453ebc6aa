import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { notifySubscription } from '../../notifications/index.ts';
import { transitionOrder } from '../../orders/index.ts';
import { enqueueRenewal, periodEndAfter, renewalStartsAt, type Interval, type RenewalMethod } from './subscriptions.ts';

/** A failed renewal is retried this many days after each failure; after the last one the subscription is cancelled. */
export const RENEWAL_RETRY_DAYS = [1, 3, 5] as const;

const DAY_MS = 86_400_000;

/** Locks the subscription while `orderId` is its renewal in flight; undefined once another path settled that renewal. */
function lockRenewing(trx: Kysely<DB>, subscriptionId: string, orderId: number) {
  return trx
    .selectFrom('subscriptions')
    .selectAll()
    .where('id', '=', subscriptionId)
    .where('renewal_order_id', '=', orderId)
    .where('status', '<>', 'cancelled')
    .forUpdate()
    .executeTakeFirst();
}

/**
 * The renewal order `orderId` was paid (a card charged, a charge found by reconciliation, a pix or boleto
 * confirmed by the gateway's webhook): the next period starts where the current one ends, the failure
 * count is reset, the following renewal is queued and `subscription.renewed` is recorded. Whichever path
 * gets here first moves the period; the others find the renewal settled and change nothing.
 */
export async function completeRenewal(
  trx: Kysely<DB>,
  subscriptionId: string,
  orderId: number,
  now: Date,
): Promise<boolean> {
  const sub = await lockRenewing(trx, subscriptionId, orderId);
  if (!sub) return false;
  const start = sub.current_period_end;
  // created_at is the subscription's start (its first period's start), the day every period end keeps.
  const end = periodEndAfter(sub.created_at, sub.interval as Interval, sub.interval_count, start);
  const next = renewalStartsAt(sub.renewal_method as RenewalMethod, end, sub.interval as Interval, sub.interval_count);
  await trx
    .updateTable('subscriptions')
    .set({
      status: 'active',
      failed_attempts: 0,
      current_period_start: start,
      current_period_end: end,
      next_charge_at: next,
      renewal_order_id: null,
      updated_at: now,
    })
    .where('id', '=', sub.id)
    .returning('id')
    .execute();
  await enqueueRenewal(trx, sub.account_id, sub.id, next);
  await notifySubscription(trx, {
    accountId: sub.account_id,
    orderId,
    subscriptionId: sub.id,
    type: 'subscription.renewed',
    at: now,
  });
  return true;
}

/**
 * The renewal order `orderId` failed (a card declined or refused, a charge the gateway never made, a pix
 * or boleto unpaid at its deadline): past due and retried 1, 3 and 5 days after the 1st, 2nd and 3rd
 * failure; the 4th cancels the subscription (`subscription.cancelled`, with that renewal order). The failed
 * renewal order is cancelled either way.
 */
export async function failRenewal(
  trx: Kysely<DB>,
  subscriptionId: string,
  orderId: number,
  now: Date,
): Promise<'failed' | 'cancelled' | 'skipped'> {
  const sub = await lockRenewing(trx, subscriptionId, orderId);
  if (!sub) return 'skipped';
  const attempts = sub.failed_attempts + 1;
  const retryDays = RENEWAL_RETRY_DAYS[attempts - 1];
  // The failed attempt's order is closed (a retry makes an order of its own); an unpaid pix's is already.
  await transitionOrder(trx, {
    accountId: sub.account_id,
    orderId,
    to: 'cancelled',
    cause: `subscription renewal failed (attempt ${attempts})`,
    at: now,
  });
  if (retryDays === undefined) {
    await trx
      .updateTable('subscriptions')
      .set({
        status: 'cancelled',
        failed_attempts: attempts,
        cancelled_at: now,
        next_charge_at: null,
        renewal_order_id: null,
        updated_at: now,
      })
      .where('id', '=', sub.id)
      .returning('id')
      .execute();
    await notifySubscription(trx, {
      accountId: sub.account_id,
      orderId,
      subscriptionId: sub.id,
      type: 'subscription.cancelled',
      at: now,
    });
    return 'cancelled';
  }
  const retryAt = new Date(now.getTime() + retryDays * DAY_MS);
  await trx
    .updateTable('subscriptions')
    .set({
      status: 'past_due',
      failed_attempts: attempts,
      next_charge_at: retryAt,
      renewal_order_id: null,
      updated_at: now,
    })
    .where('id', '=', sub.id)
    .returning('id')
    .execute();
  await enqueueRenewal(trx, sub.account_id, sub.id, retryAt);
  return 'failed';
}

/**
 * The renewal in flight cannot be settled yet (a card charge whose answer was lost, a pix or boleto not
 * yet paid): it stays the subscription's renewal, and the renewal job looks at it again at `at`. Not a
 * failure, so nothing is counted against the subscription.
 */
export async function awaitRenewal(
  trx: Kysely<DB>,
  subscriptionId: string,
  orderId: number,
  at: Date,
  now: Date,
): Promise<boolean> {
  const sub = await lockRenewing(trx, subscriptionId, orderId);
  if (!sub) return false;
  await trx
    .updateTable('subscriptions')
    .set({ next_charge_at: at, updated_at: now })
    .where('id', '=', sub.id)
    .returning('id')
    .execute();
  await enqueueRenewal(trx, sub.account_id, sub.id, at);
  return true;
}

/** From the release of a renewal order confirmed paid after its renewal job answered: the subscription it renews. */
export async function completeRenewalOfOrder(
  trx: Kysely<DB>,
  accountId: string,
  originOrderId: number,
  orderId: number,
  now: Date,
): Promise<boolean> {
  const sub = await trx
    .selectFrom('subscriptions')
    .select('id')
    .where('account_id', '=', accountId)
    .where('origin_order_id', '=', originOrderId)
    .executeTakeFirst();
  return sub ? completeRenewal(trx, sub.id, orderId, now) : false;
}
