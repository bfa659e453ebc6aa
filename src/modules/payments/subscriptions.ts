import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { enqueueJob } from '../../jobs/outbox.ts';

export const RENEW_JOB = 'subscriptions.renew';

export type Interval = 'day' | 'week' | 'month' | 'year';
/** How a subscription renews: its saved card is charged, or a new pix or boleto is issued each period. */
export type RenewalMethod = 'credit_card' | 'pix' | 'bank_slip';

const DAY_MS = 86_400_000;
/** A renewal pix or boleto is issued this long before the period ends (or half a period, if shorter): the buyer's time to pay it. */
export const RENEWAL_PAYMENT_WINDOW_DAYS = 3;

/** `from` plus `count` intervals (calendar months and years, in UTC). */
export function addInterval(from: Date, interval: Interval, count: number): Date {
  const next = new Date(from.getTime());
  if (interval === 'day') next.setUTCDate(next.getUTCDate() + count);
  else if (interval === 'week') next.setUTCDate(next.getUTCDate() + 7 * count);
  else if (interval === 'month') next.setUTCMonth(next.getUTCMonth() + count);
  else next.setUTCFullYear(next.getUTCFullYear() + count);
  return next;
}

/** How long the buyer has to pay a renewal pix or boleto: three days, or half the period when it is shorter. */
export function renewalPaymentWindowMs(interval: Interval, intervalCount: number, from: Date): number {
  const period = addInterval(from, interval, intervalCount).getTime() - from.getTime();
  return Math.min(RENEWAL_PAYMENT_WINDOW_DAYS * DAY_MS, Math.floor(period / 2));
}

/** When the renewal of a period ending at `periodEnd` starts: a card is charged at the end; a pix or boleto is issued a payment window ahead. */
export function renewalStartsAt(method: RenewalMethod, periodEnd: Date, interval: Interval, intervalCount: number): Date {
  if (method === 'credit_card') return periodEnd;
  return new Date(periodEnd.getTime() - renewalPaymentWindowMs(interval, intervalCount, periodEnd));
}

export function renewalDedupKey(subscriptionId: string, chargeAt: Date): string {
  return `${RENEW_JOB}:${subscriptionId}:${chargeAt.toISOString()}`;
}

/** Enqueues the renewal due at `chargeAt`, once per subscription and period. */
export function enqueueRenewal(trx: Kysely<DB>, accountId: string, subscriptionId: string, chargeAt: Date): Promise<boolean> {
  return enqueueJob(trx, { type: RENEW_JOB, payload: { account_id: accountId, subscription_id: subscriptionId }, accountId, runAt: chargeAt, dedupKey: renewalDedupKey(subscriptionId, chargeAt) });
}

type SubscribedLine = { subscription: boolean; interval: string | null; intervalCount?: number | null; cycle?: number | null };

/** A subscription line's period: its interval and how many of them (1 when unset). */
export function periodOf(line: SubscribedLine): { interval: Interval; count: number } | undefined {
  return line.subscription && line.interval ? { interval: line.interval as Interval, count: line.intervalCount ?? line.cycle ?? 1 } : undefined;
}

/** Whether an order's subscription products share one period, so one subscription renews them all. */
export function haveOnePeriod(lines: SubscribedLine[]): boolean {
  const periods = new Set(lines.flatMap((line) => {
    const period = periodOf(line);
    return period ? [`${period.count} ${period.interval}`] : [];
  }));
  return periods.size <= 1;
}

/**
 * Starts the subscription of a paid order: one period from now, renewed with the saved card at its end,
 * or by a new pix or boleto issued a payment window before it when the order was paid by one.
 * The period comes from the order's subscription products (one interval per order, checked at payment); the
 * amount is theirs alone, at the price paid: the order's other products, its freight, its coupon and the
 * installment interest of the first payment are not charged again.
 * Once per order (the unique origin-order index): returns false when the order already has one.
 */
export async function startSubscription(
  trx: Kysely<DB>,
  input: {
    accountId: string; companyId: number; customerId: number; orderId: number; savedMethodId: string | null; planId: number | null; amountCents: number;
    interval: Interval; intervalCount: number; renewal: { method: RenewalMethod; gateway: string | null }; now: Date;
  },
): Promise<boolean> {
  const id = randomUUID();
  const periodEnd = addInterval(input.now, input.interval, input.intervalCount);
  const firstRenewal = renewalStartsAt(input.renewal.method, periodEnd, input.interval, input.intervalCount);
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
      next_charge_at: firstRenewal,
      renewal_method: input.renewal.method,
      renewal_gateway: input.renewal.gateway,
      created_at: input.now,
      updated_at: input.now,
    })
    .onConflict((oc) => oc.columns(['account_id', 'origin_order_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return false;
  await enqueueRenewal(trx, input.accountId, id, firstRenewal);
  return true;
}
