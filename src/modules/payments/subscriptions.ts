import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { enqueueJob } from '../../jobs/outbox.ts';

export const RENEW_JOB = 'subscriptions.renew';

export type Interval = 'day' | 'week' | 'month' | 'year';

/** `from` plus `count` intervals (calendar months and years, in UTC). */
export function addInterval(from: Date, interval: Interval, count: number): Date {
  const next = new Date(from.getTime());
  if (interval === 'day') next.setUTCDate(next.getUTCDate() + count);
  else if (interval === 'week') next.setUTCDate(next.getUTCDate() + 7 * count);
  else if (interval === 'month') next.setUTCMonth(next.getUTCMonth() + count);
  else next.setUTCFullYear(next.getUTCFullYear() + count);
  return next;
}

export function renewalDedupKey(subscriptionId: string, chargeAt: Date): string {
  return `${RENEW_JOB}:${subscriptionId}:${chargeAt.toISOString()}`;
}

/** Enqueues the renewal due at `chargeAt`, once per subscription and period. */
export function enqueueRenewal(trx: Kysely<DB>, accountId: string, subscriptionId: string, chargeAt: Date): Promise<boolean> {
  return enqueueJob(trx, { type: RENEW_JOB, payload: { account_id: accountId, subscription_id: subscriptionId }, accountId, runAt: chargeAt, dedupKey: renewalDedupKey(subscriptionId, chargeAt) });
}

/**
 * Starts the subscription of a paid order: one period from now, renewed with the saved card at its end.
 * The period comes from the order's first subscription product; the amount is what this payment charged.
 * Once per order (the unique origin-order index): returns false when the order already has one.
 */
export async function startSubscription(
  trx: Kysely<DB>,
  input: { accountId: string; companyId: number; customerId: number; orderId: number; savedMethodId: string | null; planId: number | null; amountCents: number; interval: Interval; intervalCount: number; now: Date },
): Promise<boolean> {
  const id = randomUUID();
  const periodEnd = addInterval(input.now, input.interval, input.intervalCount);
  const inserted = await trx
    .insertInto('subscriptions')
    .values({
      id,
      account_id: input.accountId,
      company_id: input.companyId,
      customer_id: input.customerId,
      origin_order_id: input.orderId,
      saved_payment_method_id: input.savedMethodId,
      payment_plan_id: input.planId,
      status: 'active',
      interval: input.interval,
      interval_count: input.intervalCount,
      amount_cents: input.amountCents,
      current_period_start: input.now,
      current_period_end: periodEnd,
      next_charge_at: periodEnd,
      created_at: input.now,
      updated_at: input.now,
    })
    .onConflict((oc) => oc.columns(['account_id', 'origin_order_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return false;
  await enqueueRenewal(trx, input.accountId, id, periodEnd);
  return true;
}
