import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { dateInDaysAfter } from '../../../src/modules/orders/company-calendar.ts';
import { engines } from '../../support/engines.ts';
import {
  BOLETO_PAYER,
  ORIGIN,
  paymentsOfOrderUid,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/** A boleto is due `boleto_due_days` calendar days after the day of the sale in the company's zone, across DST changes. */
describe('dateInDaysAfter', () => {
  test('counts calendar days in the zone, not 24-hour blocks', () => {
    // 23:30 on Saturday 2027-03-13 in New York; the clocks spring forward that night.
    assert.equal(dateInDaysAfter('America/New_York', new Date('2027-03-14T04:30:00Z'), 3), '2027-03-16');
    // 23:30 on Saturday 2027-11-06; the clocks fall back that night.
    assert.equal(dateInDaysAfter('America/New_York', new Date('2027-11-07T03:30:00Z'), 3), '2027-11-09');
    assert.equal(dateInDaysAfter('America/Sao_Paulo', new Date('2027-12-31T23:59:00-03:00'), 1), '2028-01-01');
  });
});

for (const engine of engines()) {
  describe(`a boleto's due date on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    test('sold at 23:30 in New York the night the clocks spring forward, with 3 days to pay: due three calendar days later', async () => {
      await database.db
        .updateTable('companies')
        .set({ time_zone: 'America/New_York', boleto_due_days: 3 })
        .where('id', '=', merchant.companyId)
        .execute();
      pay.setNow(new Date('2027-03-14T04:30:00Z'));
      try {
        const res = await pay.app.inject({
          method: 'POST',
          url: '/api/v1/payments',
          headers: ORIGIN,
          payload: {
            checkout_page_id: merchant.pageId,
            products: [{ id: merchant.productId, quantity: 1 }],
            customer_email: 'slip-dst@example.com',
            ...BOLETO_PAYER,
            payment_plan_id: `${merchant.boletoPlanId}-1`,
          },
        });
        assert.equal(res.statusCode, 200, res.body);
        const uid = (
          await database.db
            .selectFrom('payments as p')
            .innerJoin('orders as o', 'o.id', 'p.order_id')
            .select('o.uid')
            .where('p.gateway_id', '=', res.json().payments[0])
            .executeTakeFirstOrThrow()
        ).uid;
        const [slip] = await paymentsOfOrderUid(database, uid);
        assert.equal(slip!.boleto_due_date, '2027-03-16');
      } finally {
        pay.setNow(undefined);
        await database.db
          .updateTable('companies')
          .set({ time_zone: 'America/Sao_Paulo' })
          .where('id', '=', merchant.companyId)
          .execute();
      }
    });
  });
}
