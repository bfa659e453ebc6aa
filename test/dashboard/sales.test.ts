import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { csvCell } from '../../src/modules/dashboard/orders-csv.ts';
import { engines } from '../support/engines.ts';
import { CARDS, usePayMerchant, type Merchant, type PayApp } from '../support/pay-fixtures.ts';
import { paidCardOrder, payOnPage } from '../payments/refunds/refund-fixtures.ts';
import { tokenA } from '../support/pay-fixtures.ts';
import { as, userSignedIn, type SignedInUser } from './support.ts';

const BASE = '/api/v1/dashboard';

/** Today in São Paulo, the merchant's zone: the day GET /orders and the summary both read. */
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());

for (const engine of engines()) {
  describe(`dashboard sales (home, orders, refunds, export) on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let finance: SignedInUser;
    const paid: Array<{ paymentId: number; orderId: number }> = [];

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      finance = await userSignedIn(pay.app, database, merchant, 'finance');
      for (let i = 0; i < 2; i++) {
        const order = await paidCardOrder(pay, database, merchant);
        const row = await database.db
          .selectFrom('payments')
          .select('order_id')
          .where('id', '=', order.paymentIds[0]!)
          .executeTakeFirstOrThrow();
        paid.push({ paymentId: order.paymentIds[0]!, orderId: row.order_id });
      }
      // A declined card: an attempt that counts against the approval rate.
      await payOnPage(pay, database, merchant, merchant.pageId, {
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes, CARDS.declined),
      });
    });

    test('the home figures agree with GET /orders for the same days', async () => {
      const day = today();
      const summary = await pay.app.inject({
        method: 'GET',
        url: `${BASE}/summary?initial_date=${day}&final_date=${day}`,
        headers: as(finance),
      });
      assert.equal(summary.statusCode, 200, summary.body);
      const figures = summary.json();
      const listed = await pay.app.inject({
        method: 'GET',
        url: `/api/v1/orders?period_date_filter=paid_at&initial_date=${day}&final_date=${day}&limit=100`,
        headers: { authorization: `Bearer ${merchant.apiKey}` },
      });
      const orders = listed.json() as { meta: { total_count: number }; data: Array<{ total: number }> };
      assert.equal(figures.paid_orders, orders.meta.total_count);
      assert.equal(figures.paid_orders, 2);
      assert.equal(figures.revenue_cents, Math.round(orders.data.reduce((sum, order) => sum + order.total * 100, 0)));
      assert.equal(figures.card_approved, 2);
      assert.equal(figures.card_declined, 1);
      assert.equal(figures.card_approval_rate, 2 / 3);
      assert.deepEqual(figures.daily, [{ day, revenue_cents: figures.revenue_cents, paid_orders: 2 }]);
    });

    test('a partial refund with one idempotency key refunds once; the order page shows the totals, the event and who did it', async () => {
      const { paymentId, orderId } = paid[0]!;
      const refund = (key: string, amountCents: number) =>
        pay.app.inject({
          method: 'POST',
          url: `${BASE}/payments/${paymentId}/refund`,
          headers: as(finance, { 'idempotency-key': key }),
          payload: { amount_cents: amountCents },
        });
      const noKey = await pay.app.inject({
        method: 'POST',
        url: `${BASE}/payments/${paymentId}/refund`,
        headers: as(finance),
        payload: { amount_cents: 1000 },
      });
      assert.equal(noKey.statusCode, 422);
      const [first, doubleClick] = [await refund('refund-1', 2500), await refund('refund-1', 2500)];
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(doubleClick.statusCode, 200);
      assert.equal(doubleClick.headers['idempotent-replayed'], 'true');
      const page = await pay.app.inject({ method: 'GET', url: `${BASE}/orders/${orderId}`, headers: as(finance) });
      assert.equal(page.statusCode, 200);
      const body = page.json();
      assert.equal(body.totals.refunded_cents, 2500);
      assert.equal(body.payments[0].refundable_cents, body.payments[0].amount_cents - 2500);
      assert.ok(
        body.events.some((event: { type: string }) => /refund/.test(event.type)),
        JSON.stringify(body.events),
      );
      assert.deepEqual(
        body.actions.map((action: { actor: string; action: string }) => `${action.actor} ${action.action}`),
        [`${finance.email} refund.created`],
      );
      const tooMuch = await refund('refund-2', body.payments[0].refundable_cents + 1);
      assert.equal(tooMuch.statusCode, 422);
    });

    test('the CSV export streams the filtered orders', async () => {
      const res = await pay.app.inject({
        method: 'GET',
        url: `${BASE}/orders.csv?status[]=paid&status[]=partially_refunded`,
        headers: as(finance),
      });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      const lines = res.body.trim().split('\r\n');
      assert.equal(
        lines[0],
        'id,uid,status,created_at,paid_at,customer_name,customer_email,total,paid,refunded,methods',
      );
      assert.equal(lines.length, 3);
      assert.deepEqual(
        lines
          .slice(1)
          .map((line) => Number(line.split(',')[0]))
          .sort(),
        paid.map((p) => p.orderId).sort(),
      );
      assert.match(
        lines.find((line) => line.startsWith(`${paid[0]!.orderId},`))!,
        /,25\.00,credit_card$/,
      );
    });

    test('a CSV cell never starts a formula and quotes separators', () => {
      assert.equal(csvCell('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
      assert.equal(csvCell('a,b'), '"a,b"');
      assert.equal(csvCell(-5), '-5');
      assert.equal(csvCell(null), '');
    });
  });
}
