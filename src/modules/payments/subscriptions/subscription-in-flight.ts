import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { GatewayName } from '../../../gateways/port.ts';
import { payIdempotencyKey } from '../attempts/pay-gateway-call.ts';
import { resolveGateway, type GatewayDeps } from '../attempts/pay-gateways.ts';
import { SETTLED_PAYMENT_STATUSES } from '../settlement/payment-status.ts';
import { applyRemoteStatus, paidOrVoidedAtGateway, type PaymentRow } from '../attempts/payment-jobs.service.ts';
import { cancelUnpaidPayment } from '../attempts/unpaid-attempt.ts';
import { chargeRenewal, type RenewalAttempt, type RenewalOutcome, type Subscription } from './subscription-attempt.ts';
import { completeRenewal, failRenewal } from './subscription-periods.ts';

const STANDING = new Set<string>(SETTLED_PAYMENT_STATUSES);
const SETTLED_REMOTE = new Set(['paid', 'partially_refunded', 'failed', 'cancelled']);

function findRenewalPayment(db: Kysely<DB>, sub: Subscription, orderId: number) {
  return db
    .selectFrom('payments as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .selectAll('p')
    .select('o.uid as order_uid')
    .where('p.account_id', '=', sub.account_id)
    .where('p.order_id', '=', orderId)
    .orderBy('p.id', 'desc')
    .executeTakeFirst();
}

type InFlight = { sub: Subscription; attempt: RenewalAttempt; payment: PaymentRow };

/** Settles the renewal by what its payment now says; undefined while the payment is still open. */
async function settleByPayment(db: Kysely<DB>, flight: InFlight, now: Date): Promise<RenewalOutcome | undefined> {
  const { sub, attempt } = flight;
  const { status } = await db
    .selectFrom('payments')
    .select('status')
    .where('id', '=', attempt.paymentId)
    .executeTakeFirstOrThrow();
  if (STANDING.has(status))
    return db
      .transaction()
      .execute(async (trx) => ((await completeRenewal(trx, sub.id, attempt.order.id, now)) ? 'renewed' : 'skipped'));
  if (status === 'pending' || status === 'waiting_payment') return undefined;
  return db.transaction().execute((trx) => failRenewal(trx, sub.id, attempt.order.id, now));
}

/**
 * The renewal job found a renewal in flight that is due to be looked at: a card charge whose answer was
 * lost or whose worker died, or a pix or boleto at its deadline. Its outcome is resolved before anything
 * is charged again, and it is never charged under another uid:
 * - a payment already settled (by reconciliation, a webhook) settles the renewal: paid renews, failed fails;
 * - a payment with no answer: the gateway is asked for the charge our references made (`findCharge`); a
 *   settled charge is applied, otherwise the payment is submitted again under the same uid (the gateway
 *   replays a charge it made, or makes the one it never made);
 * - a pix or boleto still unpaid at its deadline: the gateway's status is fetched (a late payment is
 *   applied and renews); still unpaid, it is voided at the gateway, cancelled here, and the renewal fails.
 */
export async function settleRenewalInFlight(
  db: Kysely<DB>,
  deps: GatewayDeps,
  sub: Subscription,
  orderId: number,
  now: Date,
): Promise<RenewalOutcome> {
  const row = await findRenewalPayment(db, sub, orderId);
  if (!row) return 'skipped';
  const { order_uid: orderUid, ...payment } = row;
  const flight: InFlight = {
    sub,
    payment,
    attempt: {
      order: { id: orderId, uid: orderUid },
      paymentId: payment.id,
      uid: payment.uid,
      gateway: payment.gateway as GatewayName,
    },
  };
  const settled = await settleByPayment(db, flight, now);
  if (settled) return settled;
  const gateway = await resolveGateway(
    db,
    deps,
    { accountId: sub.account_id, companyId: sub.company_id },
    payment.gateway,
  );
  if (payment.status === 'waiting_payment') return giveUpUnpaid(db, flight, gateway, now);
  const found = payment.gateway_id
    ? { gatewayId: payment.gateway_id, status: await gateway.client.fetchStatus(gateway.account, payment.gateway_id) }
    : await gateway.client.findCharge(gateway.account, {
        paymentUid: payment.uid,
        idempotencyKey: payIdempotencyKey(payment.uid),
      });
  if (found && SETTLED_REMOTE.has(found.status)) {
    await applyRemoteStatus(db, deps.masterKey, payment, found, now);
    return (await settleByPayment(db, flight, now)) ?? 'skipped';
  }
  return chargeRenewal(db, deps, sub, flight.attempt, now);
}

/** A renewal pix or boleto at its deadline: paid late (applied, renewed), or voided at the gateway and failed. */
async function giveUpUnpaid(
  db: Kysely<DB>,
  flight: InFlight,
  gateway: Awaited<ReturnType<typeof resolveGateway>>,
  now: Date,
): Promise<RenewalOutcome> {
  const { sub, attempt, payment } = flight;
  if (await paidOrVoidedAtGateway(db, gateway, payment, now))
    return (await settleByPayment(db, flight, now)) ?? 'skipped';
  const cause = `subscription renewal: ${payment.method === 'pix' ? 'pix' : 'boleto'} unpaid at its deadline`;
  return db.transaction().execute(async (trx) => {
    await cancelUnpaidPayment(
      trx,
      { accountId: sub.account_id, paymentId: payment.id, orderId: attempt.order.id },
      cause,
      now,
    );
    return failRenewal(trx, sub.id, attempt.order.id, now);
  });
}
