import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { dateIn } from '../../src/modules/orders/company-calendar.ts';
import { transitionOrder } from '../../src/modules/orders/order-status.ts';
import { instantOf } from '../../src/modules/scheduling/time-zones.ts';
import { bearer } from '../support/app.ts';
import { insertSchedule } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';
import { insertPage, ORIGIN, tokenA, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';

const DAY = 86_400_000;

/** An order that ends without its purchase (refunded in full, or cancelled) keeps no appointment: the slot is free again. */
for (const engine of engines()) {
  describe(`a refunded or cancelled order gives its slot back on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let pageId: string;
    let day: string;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      for (let weekday = 0; weekday < 7; weekday++)
        await insertSchedule(database, merchant, merchant.companyId, weekday, '09:00', '17:00', 60);
      pageId = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.cardPlanId],
        requireScheduling: true,
      });
      day = dateIn('America/Sao_Paulo', new Date(Date.now() + 3 * DAY));
    });

    const freeSlots = async () =>
      (
        await pay.app.inject({ url: `/api/v1/companies/${merchant.companyId}/available_schedules?date=${day}` })
      ).json() as string[];
    const bookByCard = async (time: string, email: string) => {
      const res = await pay.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: email,
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
          scheduled_at: instantOf(day, time, 'America/Sao_Paulo')!.toISOString(),
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await freeSlots()).includes(time), false);
      return database.db
        .selectFrom('payments')
        .select(['id', 'order_id'])
        .where('gateway_id', '=', res.json().payments[0])
        .executeTakeFirstOrThrow();
    };

    test('a full refund frees the slot; a partial one keeps it', async () => {
      const payment = await bookByCard('15:00', 'refund@example.com');
      const partial = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${payment.id}/refund`,
        headers: bearer(merchant.apiKey),
        payload: { amount: 10 },
      });
      assert.equal(partial.statusCode, 200, partial.body);
      assert.equal((await freeSlots()).includes('15:00'), false);
      const rest = await pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${payment.id}/refund`,
        headers: bearer(merchant.apiKey),
      });
      assert.equal(rest.statusCode, 200, rest.body);
      const order = await database.db
        .selectFrom('orders')
        .select('status')
        .where('id', '=', payment.order_id)
        .executeTakeFirstOrThrow();
      assert.equal(order.status, 'refunded');
      assert.ok((await freeSlots()).includes('15:00'));
    });

    test('a cancelled order frees the slot', async () => {
      // An order waiting for its payment, cancelled (as the merchant or an expiry would).
      const waiting = await bookByCard('14:00', 'cancel-2@example.com');
      await database.db
        .updateTable('orders')
        .set({ status: 'waiting_payment' })
        .where('id', '=', waiting.order_id)
        .execute();
      await database.db.transaction().execute((trx) =>
        transitionOrder(trx, {
          accountId: merchant.accountId,
          orderId: waiting.order_id,
          to: 'cancelled',
          cause: 'test',
          at: new Date(),
        }),
      );
      assert.ok((await freeSlots()).includes('14:00'));
    });
  });
}
