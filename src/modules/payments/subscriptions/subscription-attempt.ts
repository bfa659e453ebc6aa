import type { Kysely, Selectable } from 'kysely';
import type { DB, Subscriptions } from '../../../db/schema.ts';
import type { GatewayName } from '../../../gateways/port.ts';
import { unseal } from '../../../lib/crypto.ts';
import { toMajor } from '../../../lib/money.ts';
import { notifySubscription } from '../../notifications/index.ts';
import type { GatewayAnswer } from '../attempts/pay-gateway-call.ts';
import { resolveGateway, type GatewayDeps } from '../attempts/pay-gateways.ts';
import { findPayCompany } from '../payments.repo.ts';
import { boletoPagePath, chargeOnce, pixPagePath, type Charge, type RefusedCharge } from '../attempts/charge.ts';
import { RECONCILE_RETRY_MS, RECONCILE_WINDOW_MS } from '../attempts/reconcile-timing.ts';
import { awaitRenewal, completeRenewal, failRenewal } from './subscription-periods.ts';
import { renewalPaymentWindowMs, type Interval, type RenewalMethod } from './subscriptions.ts';
import { lockPaymentAndOrder } from '../refunds/refunds.repo.ts';

export type Subscription = Selectable<Subscriptions>;
/** The renewal in flight: its order and its one payment. */
export type RenewalAttempt = {
  order: { id: number; uid: string };
  paymentId: number;
  uid: string;
  gateway: GatewayName;
};
export type RenewalOutcome = 'renewed' | 'awaiting' | 'failed' | 'cancelled' | 'skipped';

const DAY_MS = 86_400_000;
/**
 * A card charge whose answer was lost is looked at again after this long: by then reconciliation has
 * found the charge (paid) or given up on it (failed), and the renewal follows what it found.
 */
export const RENEWAL_RECHECK_MS = RECONCILE_WINDOW_MS + RECONCILE_RETRY_MS;
/** A boleto paid on its due date is confirmed by the bank within three business days: the renewal waits this long after the due date. */
export const BOLETO_CONFIRMATION_DAYS = 5;

export const renewalMethodOf = (sub: Subscription) => sub.renewal_method as RenewalMethod;

/** The saved card a card renewal charges, unless it was revoked. */
export function findRenewalCard(db: Kysely<DB>, sub: Subscription) {
  if (!sub.saved_payment_method_id) return Promise.resolve(undefined);
  return db
    .selectFrom('saved_payment_methods')
    .select(['gateway', 'gateway_reference_encrypted'])
    .where('account_id', '=', sub.account_id)
    .where('id', '=', sub.saved_payment_method_id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/**
 * The renewal's charge under its payment's uid, so a second submission of the same payment (a worker that
 * died, an answer that was lost) is replayed by the gateway instead of charging again. A card renewal
 * charges the saved card (refused without a call when it was revoked); a pix or boleto renewal is issued
 * with the payment window to pay it in.
 */
async function renewalCharge(
  db: Kysely<DB>,
  deps: GatewayDeps,
  sub: Subscription,
  attempt: RenewalAttempt,
  now: Date,
): Promise<Charge | RefusedCharge> {
  const payment = {
    id: attempt.paymentId,
    uid: attempt.uid,
    accountId: sub.account_id,
    companyId: sub.company_id,
    orderId: attempt.order.id,
    customerId: sub.customer_id,
    gateway: attempt.gateway,
  };
  const method = renewalMethodOf(sub);
  const card = method === 'credit_card' ? await findRenewalCard(db, sub) : undefined;
  if (method === 'credit_card' && !card)
    return { payment, refused: { code: 'no_saved_method', message: 'The subscription has no saved card' } };
  const company = await findPayCompany(db, sub.account_id, sub.company_id);
  const customer = await db
    .selectFrom('customers')
    .select(['name', 'email', 'identification', 'phone'])
    .where('account_id', '=', sub.account_id)
    .where('id', '=', sub.customer_id)
    .executeTakeFirstOrThrow();
  const gateway = await resolveGateway(
    db,
    deps,
    { accountId: sub.account_id, companyId: sub.company_id },
    attempt.gateway,
  );
  const payBy = new Date(now.getTime() + renewalPaymentWindowMs(sub.interval as Interval, sub.interval_count, now));
  return {
    gateway,
    payment,
    orderUid: attempt.order.uid,
    method,
    amountCents: sub.amount_cents,
    installments: 1,
    ...(card
      ? { card: { savedReference: unseal(deps.masterKey, card.gateway_reference_encrypted), saveForLater: false } }
      : {}),
    buyer: customer,
    company,
    purpose: `subscription ${sub.id}`,
    deadline: { until: payBy },
  };
}

/** When an unpaid renewal pix or boleto is given up: at the pix's expiry; some days after the boleto's due date. */
function deadlineOf(answer: Extract<GatewayAnswer, { kind: 'pix' | 'boleto' }>): Date {
  if (answer.kind === 'pix') return answer.expiresAt;
  return new Date(Date.parse(`${answer.dueDate}T00:00:00Z`) + (1 + BOLETO_CONFIRMATION_DAYS) * DAY_MS);
}

/** What the buyer needs to pay a renewal pix or boleto; the merchant forwards it (links are resolved against PUBLIC_URL when sent). */
function paymentDue(
  attempt: RenewalAttempt,
  sub: Subscription,
  answer: Extract<GatewayAnswer, { kind: 'pix' | 'boleto' }>,
) {
  const common = { payment_id: attempt.paymentId, amount: toMajor(sub.amount_cents) };
  if (answer.kind === 'pix')
    return {
      ...common,
      method: 'pix',
      pix_code: answer.brCode,
      pix_qr_code_url: pixPagePath(attempt.uid),
      pix_expires_at: answer.expiresAt.toISOString(),
    };
  return {
    ...common,
    method: 'bank_slip',
    bank_slip_url: boletoPagePath(attempt.uid),
    boleto_digitable_line: answer.digitableLine,
    boleto_barcode: answer.barcode,
    boleto_due_date: answer.dueDate,
    // A boleto híbrido: the same boleto paid by Pix.
    ...(answer.pixCode ? { pix_code: answer.pixCode } : {}),
  };
}

/**
 * Charges the renewal in flight once (charge.ts) and records the answer with what it means for the
 * subscription, in one transaction, unless another path settled this renewal first:
 * - paid: the period moves on (`subscription.renewed`);
 * - a pix or boleto issued: the renewal waits for it until its deadline, and `subscription.payment_due`
 *   carries what the buyer needs to pay it;
 * - no answer (timeout, 5xx): the outcome is unknown, so nothing is counted and the renewal is looked at
 *   again once reconciliation has settled the charge; it is never charged under another uid meanwhile;
 * - declined or refused: a failure (retried, then cancelled).
 */
export async function chargeRenewal(
  db: Kysely<DB>,
  deps: GatewayDeps,
  sub: Subscription,
  attempt: RenewalAttempt,
  now: Date,
): Promise<RenewalOutcome> {
  const charge = await renewalCharge(db, deps, sub, attempt, now);
  const { settled } = await chargeOnce(db, deps.masterKey, charge, {
    answeredAt: () => now,
    settle: async (trx, { answer, record }): Promise<RenewalOutcome> => {
      // Money settling locks its payment and order before anything else, as the release job locks the order before
      // the subscription: taken in that order here too, the two cannot wait for each other.
      if (answer.kind === 'paid') await lockPaymentAndOrder(trx, sub.account_id, attempt.paymentId, attempt.order.id);
      const current = await trx
        .selectFrom('subscriptions')
        .select('id')
        .where('id', '=', sub.id)
        .where('renewal_order_id', '=', attempt.order.id)
        .forUpdate()
        .executeTakeFirst();
      if (!current) return 'skipped';
      await record();
      switch (answer.kind) {
        case 'paid':
          return (await completeRenewal(trx, sub.id, attempt.order.id, now)) ? 'renewed' : 'skipped';
        case 'pix':
        case 'boleto': {
          await awaitRenewal(trx, sub.id, attempt.order.id, deadlineOf(answer), now);
          await notifySubscription(trx, {
            accountId: sub.account_id,
            orderId: attempt.order.id,
            subscriptionId: sub.id,
            type: 'subscription.payment_due',
            at: now,
            extra: { payment_due: paymentDue(attempt, sub, answer) },
          });
          return 'awaiting';
        }
        case 'unavailable':
          await awaitRenewal(trx, sub.id, attempt.order.id, new Date(now.getTime() + RENEWAL_RECHECK_MS), now);
          return 'awaiting';
        case 'declined':
        case 'refused':
          return failRenewal(trx, sub.id, attempt.order.id, now);
      }
    },
  });
  return settled;
}
