import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { enqueueJob } from '../../queue/outbox.ts';
import { toMajor } from '../../lib/money.ts';
import { loadOrderDetails, type OrderData, toOrderData, whenSet } from '../orders/index.ts';
import { enabledEndpoints } from './endpoints.repo.ts';
import { ID_PREFIX, ORDER_STATUS_EVENTS, PAYMENT_STATUS_EVENTS, type NotificationEventType } from './event-types.ts';
import {
  eventsOfOrderInThisTransaction,
  findOrderCompany,
  findSubscription,
  insertDelivery,
  insertEvent,
  replaceEventData,
} from './events.repo.ts';

export const DELIVER_JOB = 'notifications.deliver';
/** Attempts per delivery; with the retry schedule of delivery.job.ts they span about 32 hours. */
export const MAX_DELIVERY_ATTEMPTS = 15;

/** `redelivery`: asked for by the merchant or an operator, so sent even while the endpoint's circuit is open. */
export type DeliverPayload = { delivery_id: string; attempt: number; redelivery?: true };

type Cause = { accountId: string; orderId: number; at: Date };

/**
 * Called by transitionOrder after every order transition, in its transaction: a status that is an event
 * (paid, refunded, …) is recorded for the account's endpoints that want it. Nothing is written when no
 * endpoint wants the event, so merchants without endpoints pay one indexed query per transaction.
 */
export function notifyOrderTransition(trx: Kysely<DB>, cause: Cause & { status: string }): Promise<void> {
  return recordEvent(trx, cause, ORDER_STATUS_EVENTS[cause.status]);
}

/** Called by transitionPayment: a failed payment and a chargeback are events. */
export function notifyPaymentTransition(trx: Kysely<DB>, cause: Cause & { status: string }): Promise<void> {
  return recordEvent(trx, cause, PAYMENT_STATUS_EVENTS[cause.status]);
}

export type SubscriptionEventType = 'subscription.payment_due' | 'subscription.renewed' | 'subscription.cancelled';

/**
 * A renewal's pix or boleto issued (`payment_due`, with what the buyer needs to pay it), a renewal paid
 * (`renewed`, with the renewal order) or a subscription cancelled after its last failed renewal.
 */
export async function notifySubscription(
  trx: Kysely<DB>,
  cause: Cause & { subscriptionId: string; type: SubscriptionEventType; extra?: Record<string, unknown> },
): Promise<void> {
  return recordEvent(trx, cause, cause.type, cause.subscriptionId, cause.extra);
}

/** What a `refund.succeeded` event says about the refund itself (money in cents, converted here). */
export type RefundFacts = {
  uid: string;
  paymentId: number;
  amountCents: number;
  gatewayRefundId: string;
  type: string;
  refundedAt: Date;
};

/**
 * Called where a refund is recorded as succeeded (refund-recording.ts), in its transaction: one event per
 * refund, so a second partial refund, which leaves the order `partially_refunded`, is still announced.
 */
export function notifyRefund(trx: Kysely<DB>, cause: Cause & { refund: RefundFacts }): Promise<void> {
  const { refund } = cause;
  const data = {
    refund: {
      id: refund.uid,
      payment_id: refund.paymentId,
      amount: toMajor(refund.amountCents),
      gateway_refund_id: refund.gatewayRefundId,
      type: refund.type,
      refunded_at: refund.refundedAt.toISOString(),
    },
  };
  return recordEvent(trx, cause, 'refund.succeeded', undefined, data);
}

type EndpointList = ReturnType<typeof enabledEndpoints>;
const endpointsOfTransaction = new WeakMap<Kysely<DB>, Map<string, EndpointList>>();

/**
 * The account's enabled endpoints, read once per transaction: one payment's transitions (the payment,
 * then its order) share the read. Endpoints change through their own requests, never inside a payment's.
 */
function endpointsIn(trx: Kysely<DB>, accountId: string, now: Date): EndpointList {
  if (!trx.isTransaction) return enabledEndpoints(trx, accountId, now);
  let byAccount = endpointsOfTransaction.get(trx);
  if (!byAccount) endpointsOfTransaction.set(trx, (byAccount = new Map()));
  let endpoints = byAccount.get(accountId);
  if (!endpoints) byAccount.set(accountId, (endpoints = enabledEndpoints(trx, accountId, now)));
  return endpoints;
}

/** Transactions that recorded an event: only their later transitions have an earlier event to bring up to date. */
const transactionsWithEvents = new WeakSet<Kysely<DB>>();

async function recordEvent(
  trx: Kysely<DB>,
  cause: Cause,
  type: NotificationEventType | undefined,
  subscriptionId?: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  // A transition that is no event (pix issued, an order waiting for payment) with no event before it in this
  // transaction has nothing to write: no need to read the endpoints.
  if (!type && trx.isTransaction && !transactionsWithEvents.has(trx)) return;
  const endpoints = await endpointsIn(trx, cause.accountId, cause.at);
  if (endpoints.length === 0) return;
  const earlier = await eventsOfOrderInThisTransaction(trx, cause.accountId, cause.orderId);
  const wanting = type
    ? endpoints.filter((endpoint) => endpoint.event_types.length === 0 || endpoint.event_types.includes(type))
    : [];
  const companyId =
    wanting.length > 0 ? ((await findOrderCompany(trx, cause.accountId, cause.orderId))?.company_id ?? null) : null;
  const targets = wanting.filter((endpoint) => endpoint.company_id === null || endpoint.company_id === companyId);
  if (earlier.length === 0 && targets.length === 0) return;
  const order = await orderSnapshot(trx, cause.accountId, cause.orderId);
  if (!order) return;
  // The snapshot is the order as this transaction leaves it: an event recorded earlier in it (a failed
  // payment before the order returns to pending) is brought up to date by every later transition.
  for (const event of earlier)
    await replaceEventData(trx, cause.accountId, event.id, { ...(event.data as object), order });
  if (!type || targets.length === 0) return;
  const subscription =
    subscriptionId === undefined ? undefined : await subscriptionSnapshot(trx, cause.accountId, subscriptionId);
  const eventId = `${ID_PREFIX.event}${randomBytes(12).toString('hex')}`;
  const data = { order, ...whenSet('subscription', subscription), ...extra };
  transactionsWithEvents.add(trx);
  await insertEvent(trx, {
    id: eventId,
    accountId: cause.accountId,
    companyId,
    type,
    orderId: cause.orderId,
    subscriptionId: subscriptionId ?? null,
    data,
    at: cause.at,
  });
  for (const endpoint of targets) {
    const deliveryId = `${ID_PREFIX.delivery}${randomBytes(12).toString('hex')}`;
    await insertDelivery(trx, {
      id: deliveryId,
      accountId: cause.accountId,
      eventId,
      endpointId: endpoint.id,
      maxAttempts: MAX_DELIVERY_ATTEMPTS,
      at: cause.at,
    });
    await enqueueDeliveryAttempt(
      trx,
      { accountId: cause.accountId, endpointId: endpoint.id },
      { delivery_id: deliveryId, attempt: 1 },
    );
  }
}

/**
 * One job per attempt, keyed by delivery and attempt so a duplicate enqueue is dropped. Attempts run in the
 * deliveries lane, limited per account and per endpoint (their concurrency key), apart from the jobs that move money.
 */
export function enqueueDeliveryAttempt(
  trx: Kysely<DB>,
  owner: { accountId: string; endpointId: string },
  payload: DeliverPayload,
  runAt?: Date,
): Promise<boolean> {
  return enqueueJob(trx, {
    type: DELIVER_JOB,
    payload,
    accountId: owner.accountId,
    runAt,
    dedupKey: `${DELIVER_JOB}:${payload.delivery_id}:${payload.attempt}`,
    lane: 'deliveries',
    concurrencyKey: owner.endpointId,
  });
}

/** OrderData with a path-only link: the worker resolves it against PUBLIC_URL when it sends (see withPublicLinks). */
async function orderSnapshot(trx: Kysely<DB>, accountId: string, orderId: number): Promise<OrderData | undefined> {
  const [details] = await loadOrderDetails(trx, accountId, [orderId]);
  return details && toOrderData(details, '');
}

async function subscriptionSnapshot(trx: Kysely<DB>, accountId: string, id: string) {
  const row = await findSubscription(trx, accountId, id);
  if (!row) return undefined;
  return {
    id: row.id,
    status: row.status,
    origin_order_id: row.origin_order_id,
    interval: row.interval,
    interval_count: row.interval_count,
    amount: toMajor(row.amount_cents),
    current_period_start: row.current_period_start.toISOString(),
    current_period_end: row.current_period_end.toISOString(),
    next_charge_at: row.next_charge_at?.toISOString() ?? null,
    cancelled_at: row.cancelled_at?.toISOString() ?? null,
  };
}

/** Resolves the path-only links (the order's, a due renewal's pix and boleto pages) against the service's public URL. */
export function withPublicLinks(data: unknown, publicUrl: string): unknown {
  const resolved = { ...(data as Record<string, unknown>) };
  const absolute = (value: unknown) =>
    typeof value === 'string' && value.startsWith('/') ? `${publicUrl}${value}` : value;
  const order = resolved.order as { link?: unknown } | undefined;
  if (order && typeof order.link === 'string') resolved.order = { ...order, link: absolute(order.link) };
  const due = resolved.payment_due as Record<string, unknown> | undefined;
  if (due)
    resolved.payment_due = Object.fromEntries(
      Object.entries(due).map(([key, value]) => [key, key.endsWith('_url') ? absolute(value) : value]),
    );
  return resolved;
}
