/**
 * The chaos suite's reconciliation on small hand-made books: consistent books pass, and each kind of
 * disagreement between a ledger, the records and the answers is named. No database or process needed.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answerViolations, singleCaptureViolations } from './support/reconcile-answers.ts';
import { ledgerViolations, orderMoneyViolations } from './support/reconcile-ledger.ts';
import type { LedgerCharge, Records } from './support/records.ts';
import type { Exchange } from './support/traffic.ts';

const SANDBOX = 'http://127.0.0.1:4010';
const IN_USE = new Set([`${SANDBOX}/gateway_a`]);

/** Order 1 bought by payment 1 (R$ 100,00, R$ 30,00 of it refunded by the merchant); payment 2 paid it too and was voided. */
function books(): { records: Records; ledger: LedgerCharge[]; exchanges: Exchange[] } {
  const payment = (id: number, status: string, refunded: number) => ({
    id,
    uid: `pay-${id}`,
    account_id: 'acc',
    company_id: 7,
    order_id: 1,
    gateway: 'gateway_a',
    gateway_id: `ch_${id}`,
    method: 'credit_card',
    status,
    amount_cents: 10_000,
    interest_cents: 0,
    refunded_cents: refunded,
    meta: { chaos_op: `op-1-${id}` },
  });
  const records = {
    payments: [payment(1, 'partially_refunded', 3_000), payment(2, 'refunded', 10_000)],
    refunds: [
      {
        id: 1,
        uid: 'ref-1',
        payment_id: 1,
        amount_cents: 3_000,
        status: 'succeeded',
        type: 'requested_by_customer',
        gateway_refund_id: 're_1',
      },
    ],
    orders: [
      {
        id: 1,
        uid: 'order-1',
        account_id: 'acc',
        status: 'partially_refunded',
        total_cents: 10_000,
        cart_id: null,
        meta: {},
      },
    ],
  } as unknown as Records;
  const charge = (id: number, refunds: LedgerCharge['refunds']): LedgerCharge => ({
    sandbox: SANDBOX,
    gateway: 'gateway_a',
    id: `ch_${id}`,
    method: 'credit_card',
    state: 'paid',
    amount_cents: 10_000,
    refunded_cents: refunds.reduce((sum, refund) => sum + refund.amount_cents, 0),
    refunds,
    metadata: { company_id: '7', payment_uid: `pay-${id}` },
  });
  const ledger = [
    charge(1, [{ id: 're_1', amount_cents: 3_000, reference: 'refund:ref-1' }]),
    charge(2, [{ id: 're_2', amount_cents: 10_000, reference: null }]),
  ];
  const answer = (op: string, status: number, body: unknown, facts: Record<string, unknown> = {}): Exchange => ({
    kind: 'charge_pay',
    op,
    method: 'POST',
    path: '/api/v1/charges/order-1/pay',
    target: 'http://api',
    status,
    body,
    facts: { chargeUid: 'order-1', group: 'op-1', ...facts },
  });
  const exchanges = [
    answer('op-1-1', 200, { status: 'paid' }),
    answer('op-1-2', 200, { status: 'paid' }),
    { ...answer('op-2', 200, null), kind: 'refund', facts: { paymentId: 1 } } as Exchange,
  ];
  return { records, ledger, exchanges };
}

function problems(world: ReturnType<typeof books>): string[] {
  return [
    ...ledgerViolations(world.ledger, world.records, IN_USE).problems,
    ...orderMoneyViolations(world.records),
    ...answerViolations(world.exchanges, world.records, world.ledger).problems,
  ];
}

describe('chaos reconciliation', () => {
  test('books that agree pass; a void counts as money given back, and is tallied', () => {
    const world = books();
    assert.deepEqual(problems(world), []);
    const { tally } = ledgerViolations(world.ledger, world.records, IN_USE);
    assert.deepEqual(tally, { charges: 2, captures: 2, refunds: 1, returnedByVoid: 1, openCutOff: 0 });
    assert.equal(answerViolations(world.exchanges, world.records, world.ledger).tally.paidThenReturned, 1);
  });

  const cases: Array<[string, (world: ReturnType<typeof books>) => void, RegExp]> = [
    [
      'a capture no payment of ours made',
      (w) => w.ledger.push({ ...w.ledger[0]!, id: 'ch_9', metadata: { payment_uid: 'x' } }),
      /ch_9 .*belongs to no payment/,
    ],
    [
      'a second charge for one payment',
      (w) => w.ledger.push({ ...w.ledger[0]!, id: 'ch_1b' }),
      /pay-1 was charged 2 times/,
    ],
    ['another amount charged', (w) => (w.ledger[0]!.amount_cents = 9_000), /9000 cents charged, 10000 recorded/],
    ['a capture recorded as failed', (w) => (w.records.payments[1]!.status = 'failed'), /pay-2 is failed/],
    [
      'a refund at the gateway recorded nowhere',
      (w) => w.ledger[0]!.refunds.push({ id: 're_x', amount_cents: 1, reference: 'refund:zz' }),
      /re_x made for refund:zz is recorded nowhere/,
    ],
    [
      'a recorded refund the gateway never made',
      (w) => (w.records.refunds[0]!.gateway_refund_id = 're_other'),
      /refund ref-1 .* is not at the gateway/,
    ],
    ['a refund still pending', (w) => (w.records.refunds[0]!.status = 'pending'), /ref-1 is still pending/],
    ['another company’s charge', (w) => (w.ledger[0]!.metadata.company_id = '8'), /names company 8/],
    ['a charge at a sandbox nobody uses', (w) => (w.ledger[0]!.gateway = 'gateway_b'), /at a sandbox no process uses/],
    [
      'an unpaid order keeping money',
      (w) => (w.records.orders[0]!.status = 'pending'),
      /not bought but keeps 7000 cents/,
    ],
    [
      'an overpayment kept',
      (w) => Object.assign(w.records.payments[1]!, { status: 'paid', refunded_cents: 0 }),
      /keeps an overpayment|pay-2 is paid/,
    ],
    [
      'a buyer told paid whose payment failed',
      (w) => (w.records.payments[0]!.status = 'failed'),
      /op-1-1\) answered 200 paid: payment pay-1 is failed/,
    ],
    [
      'a refused attempt that captured',
      (w) => (w.exchanges[1]!.status = 422),
      /op-1-2\) answered 422 \(refused\): its payment pay-2 was captured/,
    ],
    [
      'a malformed request answered 200',
      (w) => w.exchanges.push({ ...w.exchanges[0]!, kind: 'malformed', status: 200 }),
      /to malformed input/,
    ],
    ['a 500', (w) => w.exchanges.push({ ...w.exchanges[0]!, kind: 'confirm', status: 500 }), /an internal error/],
    [
      'a refund answered 200 and not recorded',
      (w) => w.records.refunds.splice(0, 1),
      /payment 1: 1 refunds answered 200, 0 unanswered, 0 recorded/,
    ],
  ];
  for (const [name, breakIt, expected] of cases)
    test(`names ${name}`, () => {
      const world = books();
      breakIt(world);
      const found = problems(world);
      assert.ok(
        found.some((problem) => expected.test(problem)),
        found.join('\n') || 'no problem found',
      );
    });

  test('one capture per concurrently paid charge: two captures of one charge are named', () => {
    const world = books();
    assert.deepEqual(singleCaptureViolations(world.exchanges, world.records, world.ledger), [
      'op-1: 2 concurrent pays, 2 answered paid, 2 captures',
    ]);
    world.ledger.splice(1, 1);
    world.exchanges[1]!.status = 409;
    assert.deepEqual(singleCaptureViolations(world.exchanges, world.records, world.ledger), []);
  });
});
