import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { bearer } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertPage, ORIGIN, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';

/** Date-time request fields share one range check: the leap second and year 0000 are a 422 naming the field, never a 500. */
for (const engine of engines()) {
  describe(`date-time fields of pay, refund and customer bodies on ${engine.name}`, { timeout: 60_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const BAD = ['2030-12-31T23:59:60Z', '0000-01-01T00:00:00Z', '2030-05-01T13:00:00+03'];

    test('scheduled_at of POST /payments on a page that takes appointments', async () => {
      const pageId = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.pixPlanId],
        requireScheduling: true,
      });
      for (const scheduledAt of BAD) {
        const res = await pay.app.inject({
          method: 'POST',
          url: '/api/v1/payments',
          headers: ORIGIN,
          payload: {
            checkout_page_id: pageId,
            products: [{ id: merchant.productId, quantity: 1 }],
            customer_email: 'when@example.com',
            payment_plan_id: `${merchant.pixPlanId}-1`,
            scheduled_at: scheduledAt,
          },
        });
        assert.equal(res.statusCode, 422, `${scheduledAt}: ${res.body}`);
        assert.equal(res.json().details[0].field, 'body/scheduled_at');
      }
      assert.equal(
        (await database.db.selectFrom('orders').select('id').where('account_id', '=', merchant.accountId).execute())
          .length,
        0,
      );
    });

    test('date of a refund', async () => {
      for (const date of BAD) {
        const res = await pay.app.inject({
          method: 'POST',
          url: '/api/v1/payments/1/refund',
          headers: bearer(merchant.apiKey),
          payload: { date },
        });
        assert.equal(res.statusCode, 422, `${date}: ${res.body}`);
        assert.equal(res.json().details[0].field, 'body/date');
      }
    });

    test('scheduled_at of POST /customers with create_deal', async () => {
      for (const scheduledAt of BAD) {
        const res = await pay.app.inject({
          method: 'POST',
          url: '/api/v1/customers',
          headers: ORIGIN,
          payload: {
            email: 'deal@example.com',
            create_deal: true,
            main_product_id: merchant.productId,
            scheduled_at: scheduledAt,
          },
        });
        assert.equal(res.statusCode, 422, `${scheduledAt}: ${res.body}`);
      }
    });
  });
}
