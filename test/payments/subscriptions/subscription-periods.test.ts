import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { paymentJobHandlers } from '../../../src/modules/payments/payments.jobs.ts';
import type { Job } from '../../../src/queue/job-handler.ts';
import {
  addInterval,
  periodEndAfter,
  startSubscription,
  type Interval,
} from '../../../src/modules/payments/subscriptions/subscriptions.ts';
import { engines } from '../../support/engines.ts';
import { ORIGIN, tokenA, type Merchant, type PayApp, usePayMerchant } from '../../support/pay-fixtures.ts';

const iso = (text: string) => new Date(text);
const day = (date: Date) => date.toISOString().slice(0, 10);

/** The ends of a subscription's first `count` periods, each computed from the previous end as renewals do. */
function periodEnds(start: string, interval: Interval, intervalCount: number, count: number): string[] {
  const ends: string[] = [];
  let end = iso(start);
  for (let i = 0; i < count; i++) ends.push(day((end = periodEndAfter(iso(start), interval, intervalCount, end))));
  return ends;
}

describe('subscription periods are counted from the start', () => {
  test("a month or year without the start's day ends on its last day", () => {
    assert.equal(addInterval(iso('2027-01-31T15:00:00Z'), 'month', 1).toISOString(), '2027-02-28T15:00:00.000Z');
    assert.equal(addInterval(iso('2028-01-31T15:00:00Z'), 'month', 1).toISOString(), '2028-02-29T15:00:00.000Z');
    assert.equal(addInterval(iso('2027-03-31T00:00:00Z'), 'month', 1).toISOString(), '2027-04-30T00:00:00.000Z');
    assert.equal(addInterval(iso('2027-12-31T23:59:59Z'), 'month', 2).toISOString(), '2028-02-29T23:59:59.000Z');
    assert.equal(addInterval(iso('2028-02-29T15:00:00Z'), 'year', 1).toISOString(), '2029-02-28T15:00:00.000Z');
    assert.equal(addInterval(iso('2028-02-29T15:00:00Z'), 'year', 4).toISOString(), '2032-02-29T15:00:00.000Z');
    assert.equal(addInterval(iso('2027-01-15T10:00:00Z'), 'month', 1).toISOString(), '2027-02-15T10:00:00.000Z');
  });

  test('monthly from Jan 31: Feb 28, Mar 31, Apr 30, … (never stuck on the 28th)', () => {
    assert.deepEqual(periodEnds('2027-01-31T15:00:00Z', 'month', 1, 6), [
      '2027-02-28',
      '2027-03-31',
      '2027-04-30',
      '2027-05-31',
      '2027-06-30',
      '2027-07-31',
    ]);
    assert.deepEqual(periodEnds('2027-08-31T15:00:00Z', 'month', 3, 4), [
      '2027-11-30',
      '2028-02-29',
      '2028-05-31',
      '2028-08-31',
    ]);
    assert.deepEqual(periodEnds('2027-05-30T15:00:00Z', 'month', 1, 2), ['2027-06-30', '2027-07-30']);
  });

  test('yearly from Feb 29: Feb 28 in common years, Feb 29 again in leap years', () => {
    assert.deepEqual(periodEnds('2028-02-29T15:00:00Z', 'year', 1, 4), [
      '2029-02-28',
      '2030-02-28',
      '2031-02-28',
      '2032-02-29',
    ]);
  });

  test("days and weeks are whole days; a drifted end rejoins the start's day", () => {
    assert.deepEqual(periodEnds('2027-02-27T15:00:00Z', 'day', 1, 3), ['2027-02-28', '2027-03-01', '2027-03-02']);
    assert.deepEqual(periodEnds('2027-02-22T15:00:00Z', 'week', 2, 2), ['2027-03-08', '2027-03-22']);
    // An end stored off the start's day (a Jan 31 start renewed to Mar 3): the next end is the start's day again.
    assert.equal(
      periodEndAfter(iso('2027-01-31T15:00:00Z'), 'month', 1, iso('2027-03-03T15:00:00Z')).toISOString(),
      '2027-03-31T15:00:00.000Z',
    );
  });
});

for (const engine of engines()) {
  describe(`subscription periods at month ends on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const renew = (now: Date, subscriptionId: string) => {
      const handlers = paymentJobHandlers({
        masterKey: pay.config.masterKey,
        gatewayUrls: { gateway_a: pay.sandboxes.baseUrlFor('gateway_a') },
        clock: () => now,
      });
      const job: Job = {
        id: 0,
        type: 'subscriptions.renew',
        payload: { account_id: merchant.accountId, subscription_id: subscriptionId },
        accountId: merchant.accountId,
        attempts: 1,
      };
      return handlers['subscriptions.renew']!(job, { database });
    };

    test('a monthly card subscription started on Jan 31 ends its periods on Feb 28, Mar 31, Apr 30 and May 31', async () => {
      const res = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.subscriptionProductId, quantity: 1 }],
          customer_email: 'jan31@example.com',
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const { order_id } = await database.db
        .selectFrom('payments')
        .select('order_id')
        .where('gateway_id', '=', res.json().payments[0])
        .executeTakeFirstOrThrow();
      const subscription = () =>
        database.db
          .selectFrom('subscriptions')
          .selectAll()
          .where('origin_order_id', '=', order_id)
          .executeTakeFirstOrThrow();
      // The same subscription, started again as if the order had been paid on 2027-01-31.
      const paid = await subscription();
      await database.db.deleteFrom('subscriptions').where('id', '=', paid.id).execute();
      const started = await database.db.transaction().execute((trx) =>
        startSubscription(trx, {
          accountId: paid.account_id,
          companyId: paid.company_id,
          customerId: paid.customer_id,
          orderId: order_id,
          savedMethodId: paid.saved_payment_method_id,
          planId: paid.payment_plan_id,
          amountCents: paid.amount_cents,
          interval: 'month',
          intervalCount: 1,
          renewal: { method: 'credit_card', gateway: null },
          now: iso('2027-01-31T15:00:00Z'),
        }),
      );
      assert.equal(started, true);
      const first = await subscription();
      const periods = [`${first.current_period_start.toISOString()} → ${first.current_period_end.toISOString()}`];
      for (let i = 0; i < 3; i++) {
        await renew(new Date((await subscription()).next_charge_at!.getTime() + 1_000), first.id);
        const renewed = await subscription();
        assert.equal(renewed.failed_attempts, 0);
        periods.push(`${renewed.current_period_start.toISOString()} → ${renewed.current_period_end.toISOString()}`);
      }
      assert.deepEqual(periods, [
        '2027-01-31T15:00:00.000Z → 2027-02-28T15:00:00.000Z',
        '2027-02-28T15:00:00.000Z → 2027-03-31T15:00:00.000Z',
        '2027-03-31T15:00:00.000Z → 2027-04-30T15:00:00.000Z',
        '2027-04-30T15:00:00.000Z → 2027-05-31T15:00:00.000Z',
      ]);
    });
  });
}
