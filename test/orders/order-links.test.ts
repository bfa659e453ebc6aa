import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { bearer } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertCart, insertPage, ORIGIN, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';

type Order = {
  id: number;
  uid: string;
  link: string;
  checkout_page?: { id: number; name: string };
  charge_page?: { id: number; name: string };
};

for (const engine of engines()) {
  describe(`OrderData link and page ids on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let baseUrl: string;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      baseUrl = await pay.app.listen({ port: 0, host: '127.0.0.1' });
    });

    const api = (
      method: string,
      path: string,
      payload?: unknown,
      headers: Record<string, string> = bearer(merchant.apiKey),
    ) =>
      pay.app.inject({
        method: method as 'GET',
        url: `/api/v1${path}`,
        headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const show = async (id: number): Promise<Order> => {
      const res = await api('GET', `/orders/${id}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    /** The link over a real HTTP connection to the listening service (PUBLIC_URL is http://pay.test). */
    const open = async (link: string) => {
      const { pathname } = new URL(link);
      assert.ok(link.startsWith(`${pay.config.publicUrl}/pay/`), link);
      const res = await fetch(`${baseUrl}${pathname}`);
      await res.arrayBuffer();
      return { status: res.status, type: res.headers.get('content-type') ?? '' };
    };
    const orderIdOfPayment = async (gatewayId: string) =>
      (
        await database.db
          .selectFrom('payments')
          .select('order_id')
          .where('gateway_id', '=', gatewayId)
          .executeTakeFirstOrThrow()
      ).order_id;
    const numericId = async (table: 'checkout_pages' | 'cart_pages', id: string) =>
      (await database.db.selectFrom(table).select('numeric_id').where('id', '=', id).executeTakeFirstOrThrow())
        .numeric_id;
    const childOrder = async (source: 'upsell' | 'subscription', parentOrderId: number) =>
      (
        await database.db
          .insertInto('orders')
          .values({
            uid: randomUUID(),
            account_id: merchant.accountId,
            company_id: merchant.companyId,
            source,
            parent_order_id: parentOrderId,
            subtotal_cents: 1_990,
            total_cents: 1_990,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;

    test('every kind of order links to a hosted page that answers 200: charge, checkout page, cart, upsell and renewal', async () => {
      const charge = await api('POST', '/orders', {
        customer: { email: 'charge@example.com' },
        items: [{ product_id: merchant.productId }],
      });
      assert.equal(charge.statusCode, 201, charge.body);

      const paid = await api(
        'POST',
        '/payments',
        {
          checkout_page_id: merchant.pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'page@example.com',
          payment_plan_id: `${merchant.pixPlanId}-1`,
        },
        ORIGIN,
      );
      assert.equal(paid.statusCode, 200, paid.body);
      const pageOrderId = await orderIdOfPayment(paid.json().payments[0]);

      const cartId = await insertCart(database, merchant);
      const cartPaid = await api(
        'POST',
        `/carts/${cartId}/pay`,
        { payment_plan_id: `${merchant.pixPlanId}-1` },
        ORIGIN,
      );
      assert.equal(cartPaid.statusCode, 200, cartPaid.body);
      const cartOrderId = await orderIdOfPayment(cartPaid.json().payments[0].gateway_id);

      const cases: Array<[string, number, string]> = [
        ['charge', charge.json().id, `/pay/charges/${charge.json().uid}`],
        ['checkout page', pageOrderId, `/pay/${merchant.pageId}`],
        ['cart', cartOrderId, `/pay/carts/${cartId}`],
        ['upsell of the checkout page order', await childOrder('upsell', pageOrderId), `/pay/${merchant.pageId}`],
        ['renewal of the cart order', await childOrder('subscription', cartOrderId), `/pay/carts/${cartId}`],
      ];
      for (const [kind, id, path] of cases) {
        const order = await show(id);
        assert.equal(order.link, `${pay.config.publicUrl}${path}`, kind);
        const answer = await open(order.link);
        assert.equal(answer.status, 200, `${kind}: ${order.link}`);
        assert.match(answer.type, /^text\/html/, kind);
      }
      // GET /orders shows the same links.
      const listed = await api('GET', '/orders?limit=100');
      const links = new Map((listed.json().data as Order[]).map((order) => [order.id, order.link]));
      for (const [kind, id, path] of cases) assert.equal(links.get(id), `${pay.config.publicUrl}${path}`, kind);
    });

    test('checkout_page and charge_page carry the page’s stable integer id', async () => {
      const otherPage = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.pixPlanId],
      });
      const ids: number[] = [];
      for (const pageId of [merchant.pageId, otherPage]) {
        const paid = await api(
          'POST',
          '/payments',
          {
            checkout_page_id: pageId,
            products: [{ id: merchant.productId, quantity: 1 }],
            customer_email: 'ids@example.com',
            payment_plan_id: `${merchant.pixPlanId}-1`,
          },
          ORIGIN,
        );
        assert.equal(paid.statusCode, 200, paid.body);
        const order = await show(await orderIdOfPayment(paid.json().payments[0]));
        assert.deepEqual(order.checkout_page, { id: await numericId('checkout_pages', pageId), name: 'Pay page' });
        assert.ok(Number.isSafeInteger(order.checkout_page!.id) && order.checkout_page!.id > 0);
        ids.push(order.checkout_page!.id);
      }
      assert.notEqual(ids[0], ids[1], 'two pages, two ids');
      assert.equal(
        ids[0],
        (
          await show(
            await orderIdOfPayment(
              (
                await api(
                  'POST',
                  '/payments',
                  {
                    checkout_page_id: merchant.pageId,
                    products: [{ id: merchant.productId, quantity: 1 }],
                    customer_email: 'again@example.com',
                    payment_plan_id: `${merchant.pixPlanId}-1`,
                  },
                  ORIGIN,
                )
              ).json().payments[0],
            ),
          )
        ).checkout_page!.id,
        'the same page, the same id',
      );

      const cartId = await insertCart(database, merchant);
      const cartPaid = await api(
        'POST',
        `/carts/${cartId}/pay`,
        { payment_plan_id: `${merchant.pixPlanId}-1` },
        ORIGIN,
      );
      const cartOrder = await show(await orderIdOfPayment(cartPaid.json().payments[0].gateway_id));
      const cart = await database.db
        .selectFrom('carts')
        .select('cart_page_id')
        .where('id', '=', cartId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(cartOrder.charge_page, {
        id: await numericId('cart_pages', cart.cart_page_id),
        name: 'Carrinho',
      });
      assert.equal(cartOrder.checkout_page, null);
    });
  });
}
