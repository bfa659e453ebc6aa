/**
 * Every acknowledged answer against what the records and the ledgers say happened: a buyer told `paid` has
 * a bought order and a payment captured once at the gateway; a refused attempt captured nothing; a refund
 * answered 200 is recorded; a malformed request got a 4xx; nothing got a 500.
 */

import { groupBy } from './reconcile-ledger.ts';
import { CAPTURED, metaOp, PURCHASED, type LedgerCharge, type PaymentRecord, type Records } from './records.ts';
import type { Exchange } from './traffic.ts';

export type AnswerTally = {
  paidAnswers: number;
  /** Buyers told `paid` whose money a safety net later gave back (another attempt had paid the order). */
  paidThenReturned: number;
  refusedAttempts: number;
  inFlightRefusals: number;
  refundsAcknowledged: number;
};

const PAY_KINDS = new Set(['page_pay', 'cart_pay', 'charge_pay']);

export function answerViolations(
  exchanges: Exchange[],
  records: Records,
  ledger: LedgerCharge[],
): { problems: string[]; tally: AnswerTally } {
  const problems: string[] = [];
  const tally: AnswerTally = {
    paidAnswers: 0,
    paidThenReturned: 0,
    refusedAttempts: 0,
    inFlightRefusals: 0,
    refundsAcknowledged: 0,
  };
  const orderById = new Map(records.orders.map((order) => [order.id, order]));
  const chargesOf = groupBy(ledger, (charge) => charge.metadata.payment_uid ?? '');
  const byGatewayId = new Map(records.payments.map((payment) => [payment.gateway_id, payment]));
  const byUid = new Map(records.payments.map((payment) => [payment.uid, payment]));
  const ordersByOp = groupBy(records.orders, (order) => metaOp(order.meta));
  const paymentsByOrder = groupBy(records.payments, (payment) => payment.order_id);
  const paymentsByOp = groupBy(records.payments, (payment) => metaOp(payment.meta));
  /** The payments an attempt made: a charge attempt's carry its op; a page or cart attempt's order does. */
  const paymentsOfAttempt = (exchange: Exchange): PaymentRecord[] =>
    exchange.kind === 'charge_pay'
      ? (paymentsByOp.get(exchange.op) ?? [])
      : (ordersByOp.get(exchange.op) ?? []).flatMap((order) => paymentsByOrder.get(order.id) ?? []);

  for (const exchange of exchanges) {
    const name = `${exchange.method} ${exchange.path.slice(0, 80)} (${exchange.op}) answered ${exchange.status}`;
    if (exchange.status === undefined) continue;
    if (exchange.status === 500) problems.push(`${name}: an internal error`);
    if (exchange.kind === 'malformed' && (exchange.status < 400 || exchange.status > 499))
      problems.push(`${name} to malformed input (${String(exchange.facts.case)})`);
    if (!PAY_KINDS.has(exchange.kind)) continue;

    if (exchange.status === 200 && isPaid(exchange)) {
      tally.paidAnswers++;
      const named = namedPayments(exchange, byGatewayId, byUid, paymentsOfAttempt);
      if (named.length === 0) problems.push(`${name} paid: no payment of ours is that attempt's`);
      for (const payment of named) {
        const charges = chargesOf.get(payment.uid) ?? [];
        const order = orderById.get(payment.order_id)!;
        if (charges.length !== 1 || charges[0]!.state !== 'paid')
          problems.push(`${name} paid: payment ${payment.uid} has ${charges.length} charges at the gateway`);
        if (!CAPTURED.has(payment.status)) problems.push(`${name} paid: payment ${payment.uid} is ${payment.status}`);
        if (!PURCHASED.has(order.status)) problems.push(`${name} paid: its order ${order.uid} is ${order.status}`);
        if (returnedBySafetyNet(payment, records)) tally.paidThenReturned++;
      }
    } else if (isRefused(exchange)) {
      tally.refusedAttempts++;
      if (exchange.status === 409 && exchange.facts.group !== undefined) tally.inFlightRefusals++;
      for (const payment of paymentsOfAttempt(exchange))
        if (CAPTURED.has(payment.status))
          problems.push(`${name} (refused): its payment ${payment.uid} was captured (${payment.status})`);
    }
  }

  // Refunds: answered 200 ≤ recorded ≤ answered 200 + unanswered (a cut-off refund may have gone through).
  const refundRows = groupBy(
    records.refunds.filter((refund) => refund.status === 'succeeded' && refund.type !== 'gateway'),
    (refund) => refund.payment_id,
  );
  for (const [paymentId, answers] of groupBy(
    exchanges.filter((exchange) => exchange.kind === 'refund'),
    (exchange) => Number(exchange.facts.paymentId),
  )) {
    const acknowledged = answers.filter((answer) => answer.status === 200).length;
    const unsettled = answers.filter((answer) => answer.status === undefined || answer.status >= 500).length;
    const recorded = refundRows.get(paymentId)?.length ?? 0;
    tally.refundsAcknowledged += acknowledged;
    if (recorded < acknowledged || recorded > acknowledged + unsettled)
      problems.push(
        `payment ${paymentId}: ${acknowledged} refunds answered 200, ${unsettled} unanswered, ${recorded} recorded`,
      );
  }
  return { problems, tally };
}

/** A 4xx, or a charge attempt answered 200 `failed` (a charge's decline). */
function isRefused(exchange: Exchange): boolean {
  const status = exchange.status!;
  return (status >= 400 && status < 500) || (exchange.kind === 'charge_pay' && exchange.body?.status === 'failed');
}

function isPaid(exchange: Exchange): boolean {
  return exchange.kind === 'charge_pay' ? exchange.body?.status === 'paid' : exchange.body?.order_status === 'paid';
}

function namedPayments(
  exchange: Exchange,
  byGatewayId: Map<string | null, PaymentRecord>,
  byUid: Map<string, PaymentRecord>,
  paymentsOfAttempt: (exchange: Exchange) => PaymentRecord[],
): PaymentRecord[] {
  if (exchange.kind === 'page_pay')
    return (exchange.body.payments as string[]).flatMap((id) => byGatewayId.get(id) ?? byUid.get(id) ?? []);
  if (exchange.kind === 'cart_pay')
    return (exchange.body.payments as Array<{ id: string }>).flatMap((payment) => byUid.get(payment.id) ?? []);
  return paymentsOfAttempt(exchange);
}

/** Captured, then given back whole with no refund the merchant asked for: an orphan or overpayment void. */
function returnedBySafetyNet(payment: PaymentRecord, records: Records): boolean {
  const asked = records.refunds
    .filter((refund) => refund.payment_id === payment.id && refund.status === 'succeeded' && refund.type !== 'gateway')
    .reduce((sum, refund) => sum + refund.amount_cents, 0);
  return payment.status === 'refunded' && asked < payment.amount_cents;
}

/**
 * Exactly one capture per charge or cart paid by concurrent cards (the in-flight rule), and no buyer of them
 * told `paid` for money then given back (the attempts of a group carry `facts.group`).
 */
export function singleCaptureViolations(exchanges: Exchange[], records: Records, ledger: LedgerCharge[]): string[] {
  const problems: string[] = [];
  const orderOf = new Map(records.payments.map((payment) => [payment.uid, payment.order_id]));
  const orders = new Map(records.orders.map((order) => [order.id, order]));
  const groups = groupBy(
    exchanges.filter((exchange) => PAY_KINDS.has(exchange.kind) && exchange.facts.group !== undefined),
    (exchange) => String(exchange.facts.group),
  );
  for (const [group, attempts] of groups) {
    const first = attempts[0]!;
    const belongs = (orderId: number) => {
      const order = orders.get(orderId);
      return first.kind === 'charge_pay' ? order?.uid === first.facts.chargeUid : order?.cart_id === first.facts.cartId;
    };
    const captures = ledger.filter(
      (charge) => charge.state === 'paid' && belongs(orderOf.get(charge.metadata.payment_uid ?? '') ?? 0),
    );
    const paid = attempts.filter((attempt) => attempt.status === 200 && isPaid(attempt)).length;
    if (captures.length > 1 || paid > 1)
      problems.push(`${group}: ${attempts.length} concurrent pays, ${paid} answered paid, ${captures.length} captures`);
  }
  return problems;
}
