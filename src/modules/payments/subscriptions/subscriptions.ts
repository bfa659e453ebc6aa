import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { enqueueJob } from '../../../queue/outbox.ts';

export const RENEW_JOB = 'subscriptions.renew';

export type Interval = 'day' | 'week' | 'month' | 'year';
/** How a subscription renews: its saved card is charged, or a new pix or boleto is issued each period. */
export type RenewalMethod = 'credit_card' | 'pix' | 'bank_slip';

const DAY_MS = 86_400_000;
/** A renewal pix or boleto is issued this long before the period ends (or half a period, if shorter): the buyer's time to pay it. */
export const RENEWAL_PAYMENT_WINDOW_DAYS = 3;

/**
 * `from` plus `count` intervals, in UTC. A month or year that lacks `from`'s day ends on its last day
 * (Jan 31 + 1 month = Feb 28; Feb 29 + 1 year = Feb 28) instead of rolling into the next month.
 */
export function addInterval(from: Date, interval: Interval, count: number): Date {
  if (interval === 'day' || interval === 'week')
    return new Date(from.getTime() + (interval === 'week' ? 7 : 1) * count * DAY_MS);
  const months = from.getUTCMonth() + (interval === 'month' ? count : 12 * count);
  const year = from.getUTCFullYear() + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const next = new Date(from.getTime());
  next.setUTCFullYear(year, month, Math.min(from.getUTCDate(), lastDay));
  return next;
}

/** Average interval lengths: a first guess at how many periods have passed, which `periodEndAfter` then corrects. */
const APPROX_MS: Record<Interval, number> = {
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30.436875 * DAY_MS,
  year: 365.2425 * DAY_MS,
};

/**
 * The end of the period that follows one ending at `after`, for a subscription started at `start`: the
 * first end after `after` among start + n periods. Counted from the start, not from the previous end, so
 * a day a short month lacks comes back (Jan 31 → Feb 28 → Mar 31), and an end stored off the start's day
 * rejoins it.
 */
export function periodEndAfter(start: Date, interval: Interval, intervalCount: number, after: Date): Date {
  const endOf = (n: number) => addInterval(start, interval, intervalCount * n);
  let n = Math.max(1, Math.floor((after.getTime() - start.getTime()) / (APPROX_MS[interval] * intervalCount)));
  while (n > 1 && endOf(n - 1) > after) n--;
  while (endOf(n) <= after) n++;
  return endOf(n);
}

/** How long the buyer has to pay a renewal pix or boleto: three days, or half the period when it is shorter. */
export function renewalPaymentWindowMs(interval: Interval, intervalCount: number, from: Date): number {
  const period = addInterval(from, interval, intervalCount).getTime() - from.getTime();
  return Math.min(RENEWAL_PAYMENT_WINDOW_DAYS * DAY_MS, Math.floor(period / 2));
}

/** When the renewal of a period ending at `periodEnd` starts: a card is charged at the end; a pix or boleto is issued a payment window ahead. */
export function renewalStartsAt(
  method: RenewalMethod,
  periodEnd: Date,
  interval: Interval,
  intervalCount: number,
): Date {
  if (method === 'credit_card') return periodEnd;
  return new Date(periodEnd.getTime() - renewalPaymentWindowMs(interval, intervalCount, periodEnd));
}

export function renewalDedupKey(subscriptionId: string, chargeAt: Date): string {
  return `${RENEW_JOB}:${subscriptionId}:${chargeAt.toISOString()}`;
}

/** Enqueues the renewal due at `chargeAt`, once per subscription and period. */
export function enqueueRenewal(
  trx: Kysely<DB>,
  accountId: string,
  subscriptionId: string,
  chargeAt: Date,
): Promise<boolean> {
  return enqueueJob(trx, {
    type: RENEW_JOB,
    payload: { account_id: accountId, subscription_id: subscriptionId },
    accountId,
    runAt: chargeAt,
    dedupKey: renewalDedupKey(subscriptionId, chargeAt),
  });
}

type SubscribedLine = {
  subscription: boolean;
  interval: string | null;
  intervalCount?: number | null;
  cycle?: number | null;
};

/** A subscription line's period: its interval and how many of them (1 when unset). */
export function periodOf(line: SubscribedLine): { interval: Interval; count: number } | undefined {
  return line.subscription && line.interval
    ? { interval: line.interval as Interval, count: line.intervalCount ?? line.cycle ?? 1 }
    : undefined;
}

/** Whether an order's subscription products share one period, so one subscription renews them all. */
export function haveOnePeriod(lines: SubscribedLine[]): boolean {
  const periods = new Set(
    lines.flatMap((line) => {
      const period = periodOf(line);
      return period ? [`${period.count} ${period.interval}`] : [];
    }),
  );
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
    accountId: string;
    companyId: number;
    customerId: number;
    orderId: number;
    savedMethodId: string | null;
    planId: number | null;
    amountCents: number;
    interval: Interval;
    intervalCount: number;
    renewal: { method: RenewalMethod; gateway: string | null };
    now: Date;
  },
): Promise<boolean> {
  const id = randomUUID();
  const periodEnd = periodEndAfter(input.now, input.interval, input.intervalCount, input.now);
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
