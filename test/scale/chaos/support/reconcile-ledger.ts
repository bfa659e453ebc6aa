/**
 * Every sandbox ledger against the service's records, both ways. Each check returns the violations it found
 * (empty when it holds), so a failing run names every broken record at once.
 */

import { CAPTURED, PURCHASED, type LedgerCharge, type Records } from './records.ts';

export type LedgerTally = {
  charges: number;
  captures: number;
  refunds: number;
  returnedByVoid: number;
  /** Pix or boletos the gateway issued for a request cut off before its answer: still open there, pending here. */
  openCutOff: number;
};

/** The gateway of each sandbox process the services were pointed at (`${root}/${gateway}`). */
export function ledgerViolations(
  ledger: LedgerCharge[],
  records: Records,
  inUse: Set<string>,
): { problems: string[]; tally: LedgerTally } {
  const problems: string[] = [];
  const tally: LedgerTally = { charges: ledger.length, captures: 0, refunds: 0, returnedByVoid: 0, openCutOff: 0 };
  const paymentByUid = new Map(records.payments.map((payment) => [payment.uid, payment]));
  const refundsOf = groupBy(records.refunds, (refund) => refund.payment_id);
  const chargesOf = groupBy(ledger, (charge) => charge.metadata.payment_uid ?? '');

  for (const charge of ledger) {
    const name = `${charge.gateway} charge ${charge.id} (${charge.state})`;
    if (!inUse.has(`${charge.sandbox}/${charge.gateway}`)) problems.push(`${name} is at a sandbox no process uses`);
    const payment = paymentByUid.get(charge.metadata.payment_uid ?? '');
    if (!payment) {
      problems.push(`${name} belongs to no payment of ours`);
      continue;
    }
    const captured = charge.state === 'paid';
    if (captured) tally.captures++;
    if (String(payment.company_id) !== charge.metadata.company_id)
      problems.push(`${name} names company ${charge.metadata.company_id}, its payment is of ${payment.company_id}`);
    if (payment.gateway !== charge.gateway || payment.gateway_id !== charge.id)
      problems.push(`${name}: payment ${payment.uid} records ${payment.gateway} ${payment.gateway_id}`);
    if (payment.amount_cents !== charge.amount_cents)
      problems.push(`${name}: ${charge.amount_cents} cents charged, ${payment.amount_cents} recorded`);
    if (captured !== CAPTURED.has(payment.status))
      problems.push(`${name}: payment ${payment.uid} is ${payment.status}`);
    // Reconciliation adopts such a charge's id but applies only final statuses, and no buyer ever saw its code.
    if (charge.state === 'waiting_payment' && payment.status === 'pending') tally.openCutOff++;
    else if ((charge.state === 'waiting_payment') !== (payment.status === 'waiting_payment'))
      problems.push(`${name}: payment ${payment.uid} is ${payment.status} (a buyer could pay what we closed, or not)`);
    if (charge.refunded_cents !== payment.refunded_cents)
      problems.push(`${name}: ${charge.refunded_cents} cents refunded there, ${payment.refunded_cents} here`);

    // Each refund row of ours is one refund at the gateway, and what no row explains is a void.
    const rows = (refundsOf.get(payment.id) ?? []).filter((refund) => refund.status === 'succeeded');
    const unexplained = [...charge.refunds];
    for (const row of rows) {
      const index = unexplained.findIndex((refund) => refund.id === row.gateway_refund_id);
      if (index < 0 || unexplained[index]!.amount_cents !== row.amount_cents)
        problems.push(`refund ${row.uid} (${row.amount_cents} cents) of ${name} is not at the gateway`);
      else unexplained.splice(index, 1);
    }
    tally.refunds += rows.length;
    for (const refund of unexplained) {
      if (refund.reference?.startsWith('refund:'))
        problems.push(`${name}: gateway refund ${refund.id} made for ${refund.reference} is recorded nowhere`);
    }
    const voided = unexplained.reduce((sum, refund) => sum + refund.amount_cents, 0);
    if (voided > 0) {
      tally.returnedByVoid++;
      if (voided !== charge.amount_cents || payment.status !== 'refunded')
        problems.push(`${name}: ${voided} cents returned without a refund of ours, payment ${payment.status}`);
    }
  }

  for (const [uid, charges] of chargesOf)
    if (charges.length > 1) problems.push(`payment ${uid} was charged ${charges.length} times at the gateway`);
  for (const payment of records.payments) {
    const charges = chargesOf.get(payment.uid) ?? [];
    if (CAPTURED.has(payment.status) && charges.filter((charge) => charge.state === 'paid').length !== 1)
      problems.push(`payment ${payment.uid} is ${payment.status}, the gateway holds no capture for it`);
    if (payment.gateway_id && charges.length === 0)
      problems.push(`payment ${payment.uid} records gateway id ${payment.gateway_id}, unknown at the gateway`);
  }
  for (const refund of records.refunds)
    if (refund.status === 'pending') problems.push(`refund ${refund.uid} is still pending after the system settled`);
  return { problems, tally };
}

/**
 * Orders keep exactly the money they should: a bought order had its total captured and keeps no second
 * payment's worth (overpayments are given back), an order not bought keeps nothing, and one waiting for a pix
 * or boleto has one waiting.
 */
export function orderMoneyViolations(records: Records): string[] {
  const problems: string[] = [];
  const paymentsOf = groupBy(records.payments, (payment) => payment.order_id);
  for (const order of records.orders) {
    const mine = paymentsOf.get(order.id) ?? [];
    const captured = mine.filter((payment) => CAPTURED.has(payment.status));
    const kept = captured
      .map((payment) => payment.amount_cents - payment.interest_cents - payment.refunded_cents)
      .filter((cents) => cents > 0);
    const keptCents = kept.reduce((sum, cents) => sum + cents, 0);
    const name = `order ${order.uid} (${order.status}, ${order.total_cents} cents)`;
    if (PURCHASED.has(order.status)) {
      const ever = captured.reduce((sum, payment) => sum + payment.amount_cents - payment.interest_cents, 0);
      if (ever < order.total_cents) problems.push(`${name} was bought with ${ever} cents captured`);
      if (kept.length > 1 && keptCents - Math.min(...kept) >= order.total_cents)
        problems.push(`${name} keeps an overpayment: ${kept.join(' + ')} cents`);
    } else if (keptCents > 0) {
      problems.push(`${name} was not bought but keeps ${keptCents} cents`);
    }
    if (order.status === 'waiting_payment' && !mine.some((payment) => payment.status === 'waiting_payment'))
      problems.push(`${name} waits with no payment waiting`);
  }
  return problems;
}

export function groupBy<T, K>(items: T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
