import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { AppError } from '../../../http/errors.ts';
import { gatewayUnavailableAt, lockChargeOrder, newestPendingPayment } from './attempt-claim.repo.ts';
import { assertCartUnpaid, assertChargePayable, type PayContext } from '../checkout/pay-context.ts';
import { RECONCILE_RETRY_MS, RECONCILE_WINDOW_MS } from './reconcile-timing.ts';
import { RECONCILE_DELAY_MS } from './payment-record.ts';

/**
 * How long a pending payment counts as an attempt in flight. Reconciliation settles or fails an unanswered payment
 * within its window plus one look; one still pending after that is one no worker reached, and it no longer blocks
 * the charge or cart (the orphan-capture job remains the net for a capture learnt even later).
 */
export const IN_FLIGHT_LIFETIME_MS = RECONCILE_WINDOW_MS + RECONCILE_RETRY_MS;
/** How long an attempt's gateway call may still be under way: the clients give up after 10 s. */
const CALL_MS = 15_000;

/** What an attempt pays that another attempt could pay at the same time: a charge's order, or a cart. */
export type AttemptSubject = { kind: 'charge'; orderId: number } | { kind: 'cart'; cartId: string };

/**
 * A checkout page's attempt creates its own order, so no other attempt can pay it: it has nothing to claim.
 * A charge's attempts pay the charge's order; a cart's each create an order of the cart.
 */
export function attemptSubject(context: PayContext): AttemptSubject | undefined {
  if (context.existingOrder) return { kind: 'charge', orderId: context.existingOrder.id };
  if (context.entry === 'cart' && context.orderLinks.cartId) return { kind: 'cart', cartId: context.orderLinks.cartId };
  return undefined;
}

/**
 * At most one payment attempt in flight per charge and per cart, decided in the caller's transaction before its
 * intent is written, so before any gateway call: the charge's order row (or the cart's row) is locked, then a
 * subject already paid is refused (422, as before the lock), and one with a payment still `pending` (its call under
 * way, or unanswered and being reconciled) created within `IN_FLIGHT_LIFETIME_MS` is refused with 409
 * `payment_in_progress` and `Retry-After`. The pending payment rows are the in-flight mark: whatever answers or
 * reconciles them (the pay request, a webhook, the reconciliation jobs) frees the subject in the same transaction.
 * The lock is held until the caller commits the intent, so a second attempt waiting on it sees the first's rows.
 */
export async function claimAttempt(
  trx: Kysely<DB>,
  accountId: string,
  subject: AttemptSubject,
  now: Date,
): Promise<void> {
  if (subject.kind === 'charge') assertChargePayable(await lockChargeOrder(trx, accountId, subject.orderId));
  else await assertCartUnpaid(trx, accountId, subject.cartId, { lock: true });
  const since = new Date(now.getTime() - IN_FLIGHT_LIFETIME_MS);
  const pending = await newestPendingPayment(
    trx,
    accountId,
    subject.kind === 'charge' ? { orderId: subject.orderId } : { cartId: subject.cartId },
    since,
  );
  if (!pending) return;
  const unansweredAt = await gatewayUnavailableAt(trx, accountId, pending);
  throw inProgress(subject, { startedAt: pending.createdAt, ...(unansweredAt ? { unansweredAt } : {}) }, now);
}

/**
 * An order a merchant cancels has no payment attempt in flight: that attempt's answer could still take the buyer's
 * money on a cancelled order. Refused with 409 `payment_in_progress` and `Retry-After`, as a second pay would be.
 */
export async function assertNoAttemptInFlight(
  trx: Kysely<DB>,
  accountId: string,
  orderId: number,
  now: Date,
): Promise<void> {
  const pending = await newestPendingPayment(
    trx,
    accountId,
    { orderId },
    new Date(now.getTime() - IN_FLIGHT_LIFETIME_MS),
  );
  if (!pending) return;
  const unansweredAt = await gatewayUnavailableAt(trx, accountId, pending);
  const attempt = { startedAt: pending.createdAt, ...(unansweredAt ? { unansweredAt } : {}) };
  throw new AppError(
    'payment_in_progress',
    'A payment of this order is under way at the gateway; cancel the order once that payment is answered',
    [],
    { 'Retry-After': String(retryAfterSeconds(attempt, now)) },
  );
}

/** The attempt in flight: when it was recorded, and when its call was recorded unanswered (if it was). */
export type InFlight = { startedAt: Date; unansweredAt?: Date };

const answering = (attempt: InFlight, now: Date) =>
  !attempt.unansweredAt && now.getTime() - attempt.startedAt.getTime() < CALL_MS;

function inProgress(subject: AttemptSubject, attempt: InFlight, now: Date): AppError {
  const what = subject.kind === 'charge' ? 'this charge' : 'this cart';
  return new AppError(
    'payment_in_progress',
    answering(attempt, now)
      ? `Another payment of ${what} is in progress; retry once it is answered`
      : `Another payment of ${what} got no answer from the gateway and is being reconciled; retry later`,
    [],
    { 'Retry-After': String(retryAfterSeconds(attempt, now)) },
  );
}

/**
 * When to try again: in a second while the other attempt's gateway call may still be answering; otherwise when
 * reconciliation next looks at it (two minutes after the call was recorded unanswered, or after the attempt for a
 * process that died during the call, then every five minutes), never past the mark's lifetime.
 */
export function retryAfterSeconds(attempt: InFlight, now: Date): number {
  if (answering(attempt, now)) return 1;
  const at = now.getTime();
  let next = (attempt.unansweredAt ?? attempt.startedAt).getTime() + RECONCILE_DELAY_MS;
  if (next <= at) next += Math.ceil((at - next + 1) / RECONCILE_RETRY_MS) * RECONCILE_RETRY_MS;
  const end = attempt.startedAt.getTime() + IN_FLIGHT_LIFETIME_MS;
  return Math.max(1, Math.ceil((Math.min(next, end) - at) / 1000));
}
