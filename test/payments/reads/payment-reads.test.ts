import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../src/db/database.ts';
import { paymentRefs } from '../../../src/modules/payments/reads/payment-reads.service.ts';
import { bearer, type Tenant, useTwoShops } from '../../support/app.ts';
import {
  insertCart,
  insertCartPage,
  insertCheckoutPage,
  insertOrder,
  insertPayment,
} from '../../support/catalog-fixtures.ts';
import { documentedJson } from '../../support/documented-response.ts';
import { engines } from '../../support/engines.ts';

const SHOP = { origin: 'https://shop.example' };
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

describe('requested payment ids', () => {
  test('every id is tried as a gateway id; integers and uuids also as internal ids; blanks and repeats drop out', () => {
    const uid = 'A1B2C3D4-0000-4000-8000-000000000001';
    assert.deepEqual(paymentRefs(['ch_1', '42', uid, ' ', '', '42', '0', '99999999999999999999']), {
      gatewayIds: ['ch_1', '42', uid, '0', '99999999999999999999'],
      ids: [42],
      uids: [uid.toLowerCase()],
    });
  });
});

for (const engine of engines()) {
  describe(`payment status reads on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;

    useTwoShops(engine, (setup) => ({ database, app, shop, other } = setup));

    // Requests that must not reach the shop's public resources: a foreign origin, a foreign key, no origin.
    const strangers = (): Record<string, string>[] => [{ origin: 'https://other.example' }, bearer(other.apiKey), {}];

    const is204 = (res: { statusCode: number; body: string }, what: string) => {
      assert.equal(res.statusCode, 204, what);
      assert.equal(res.body, '', what);
    };

    describe('GET /checkout_pages/{id}/payments', () => {
      let page: string;
      let paid: { id: number; uid: string };
      let unnumbered: { id: number; uid: string };
      const statuses = [
        'waiting_payment',
        'failed',
        'cancelled',
        'partially_refunded',
        'refunded',
        'waiting_cancellation',
        'charged_back',
      ];
      before(async () => {
        page = await insertCheckoutPage(database, shop);
        const first = await insertOrder(database, shop, { checkout_page_id: page, source: 'checkout_page' });
        const second = await insertOrder(database, shop, { checkout_page_id: page, source: 'checkout_page' });
        paid = await insertPayment(database, shop, first.id, {
          gateway_id: 'ga_paid',
          status: 'paid',
          created_at: minutesAgo(30),
        });
        unnumbered = await insertPayment(database, shop, second.id, { status: 'pending', created_at: minutesAgo(29) });
        for (const [index, status] of statuses.entries()) {
          await insertPayment(database, shop, second.id, {
            gateway_id: `ga_${status}`,
            status,
            created_at: minutesAgo(20 - index),
          });
        }
        const elsewhere = await insertOrder(database, shop, {
          checkout_page_id: await insertCheckoutPage(database, shop),
        });
        await insertPayment(database, shop, elsewhere.id, { gateway_id: 'ga_elsewhere', status: 'paid' });
        const foreignPage = await insertCheckoutPage(database, other);
        const foreignOrder = await insertOrder(database, other, { checkout_page_id: foreignPage });
        await insertPayment(database, other, foreignOrder.id, { gateway_id: 'ga_paid', status: 'failed' });
      });
      const get = (query: string, key = shop.apiKey, pageId = page) =>
        app.inject({ url: `/api/v1/checkout_pages/${pageId}/payments${query}`, headers: bearer(key) });

      test('by gateway id, in creation order, with internal statuses mapped to the four public ones', async () => {
        const query = ['ga_paid', ...statuses.map((status) => `ga_${status}`)].map((id) => `ids[]=${id}`).join('&');
        const res = await get(`?${query}`);
        assert.equal(res.statusCode, 200);
        assert.deepEqual(documentedJson(app, res), [
          { gateway_id: 'ga_paid', status: 'paid' },
          { gateway_id: 'ga_waiting_payment', status: 'waiting_payment' },
          { gateway_id: 'ga_failed', status: 'failed' },
          { gateway_id: 'ga_cancelled', status: 'cancelled' },
          { gateway_id: 'ga_partially_refunded', status: 'paid' },
          { gateway_id: 'ga_refunded', status: 'cancelled' },
          { gateway_id: 'ga_waiting_cancellation', status: 'cancelled' },
          { gateway_id: 'ga_charged_back', status: 'cancelled' },
        ]);
      });

      test('by internal id or uid; a payment without gateway id is named by its uid and pending reads waiting_payment', async () => {
        assert.deepEqual((await get(`?ids[]=${paid.id}`)).json(), [{ gateway_id: 'ga_paid', status: 'paid' }]);
        assert.deepEqual((await get(`?ids[]=${unnumbered.uid.toUpperCase()}`)).json(), [
          { gateway_id: unnumbered.uid, status: 'waiting_payment' },
        ]);
        assert.deepEqual((await get(`?ids[]=${unnumbered.id}&ids[]=ga_paid&ids[]=ga_paid`)).json(), [
          { gateway_id: 'ga_paid', status: 'paid' },
          { gateway_id: unnumbered.uid, status: 'waiting_payment' },
        ]);
        assert.deepEqual((await get('?ids=ga_failed')).json(), [{ gateway_id: 'ga_failed', status: 'failed' }]);
      });

      test('without ids: the page’s payments, newest first, none of another page or account', async () => {
        const res = await get('');
        assert.equal(res.statusCode, 200);
        assert.deepEqual(documentedJson(app, res), [
          { gateway_id: 'ga_charged_back', status: 'cancelled' },
          { gateway_id: 'ga_waiting_cancellation', status: 'cancelled' },
          { gateway_id: 'ga_refunded', status: 'cancelled' },
          { gateway_id: 'ga_partially_refunded', status: 'paid' },
          { gateway_id: 'ga_cancelled', status: 'cancelled' },
          { gateway_id: 'ga_failed', status: 'failed' },
          { gateway_id: 'ga_waiting_payment', status: 'waiting_payment' },
          { gateway_id: unnumbered.uid, status: 'waiting_payment' },
          { gateway_id: 'ga_paid', status: 'paid' },
        ]);
        is204(await get('', shop.apiKey, await insertCheckoutPage(database, shop)), 'a page without payments');
      });

      test('204 with no body when nothing matches, when every id is blank, and for another page’s payment', async () => {
        is204(await get('?ids[]=nothing'), 'no match');
        is204(await get('?ids[]='), 'blank id');
        is204(await get('?ids[]=ga_elsewhere'), 'another page');
      });

      test('another account’s key, a deleted or an unknown page is 404; bad input is 422; no key is 401', async () => {
        assert.equal((await get('?ids[]=ga_paid', other.apiKey)).statusCode, 404);
        const deleted = await insertCheckoutPage(database, shop, { deleted_at: new Date() });
        assert.equal((await get('?ids[]=ga_paid', shop.apiKey, deleted)).statusCode, 404);
        assert.equal((await get('?ids[]=ga_paid', shop.apiKey, randomUUID())).statusCode, 404);
        assert.equal((await get('?ids[]=ga_paid', shop.apiKey, 'nope')).statusCode, 422);
        assert.equal((await get('?ids[]=ga_paid&status=paid')).statusCode, 422);
        assert.equal((await get(`?ids[]=${'x'.repeat(256)}`)).statusCode, 422);
        assert.equal((await get(`?${Array.from({ length: 101 }, (_, i) => `ids[]=g${i}`).join('&')}`)).statusCode, 422);
        assert.equal(
          (await app.inject({ url: `/api/v1/checkout_pages/${page}/payments?ids[]=ga_paid` })).statusCode,
          401,
        );
      });
    });

    describe('GET /carts/{id}/payments', () => {
      let cart: string;
      let emptyCart: string;
      before(async () => {
        const cartPage = await insertCartPage(database, shop);
        cart = await insertCart(database, shop, cartPage);
        emptyCart = await insertCart(database, shop, cartPage);
        const order = await insertOrder(database, shop, { cart_id: cart, cart_page_id: cartPage, source: 'cart' });
        await insertPayment(database, shop, order.id, {
          gateway_id: 'cart_card',
          status: 'failed',
          created_at: minutesAgo(5),
        });
        await insertPayment(database, shop, order.id, {
          gateway_id: 'cart_pix',
          status: 'waiting_payment',
          created_at: minutesAgo(4),
        });
        const otherCart = await insertCart(database, shop, cartPage);
        const otherOrder = await insertOrder(database, shop, { cart_id: otherCart, source: 'cart' });
        await insertPayment(database, shop, otherOrder.id, { gateway_id: 'other_cart_pix', status: 'paid' });
      });
      const get = (cartId: string, query: string, headers: Record<string, string> = SHOP) =>
        app.inject({ url: `/api/v1/carts/${cartId}/payments${query}`, headers });

      test('the statuses of the cart’s payments from an allowed origin or with the owner’s key', async () => {
        const expected = [
          { gateway_id: 'cart_card', status: 'failed' },
          { gateway_id: 'cart_pix', status: 'waiting_payment' },
        ];
        assert.deepEqual((await get(cart, '?ids[]=cart_pix&ids[]=cart_card')).json(), expected);
        assert.deepEqual((await get(cart, '?ids[]=cart_pix&ids[]=cart_card', bearer(shop.apiKey))).json(), expected);
      });

      test('without ids: the cart’s payments, newest first; 204 for a cart without payments', async () => {
        const res = await get(cart, '');
        assert.equal(res.statusCode, 200);
        assert.deepEqual(documentedJson(app, res), [
          { gateway_id: 'cart_pix', status: 'waiting_payment' },
          { gateway_id: 'cart_card', status: 'failed' },
        ]);
        is204(await get(emptyCart, ''), 'empty cart, no ids');
      });

      test('204 with no body: no match, another cart’s payment, a cart without orders', async () => {
        is204(await get(cart, '?ids[]=nope'), 'no match');
        is204(await get(cart, '?ids[]=other_cart_pix'), 'another cart');
        is204(await get(emptyCart, '?ids[]=cart_pix'), 'empty cart');
      });

      test('another account’s origin or key, or no origin, is 403; unknown cart 404; malformed id or query 422', async () => {
        for (const headers of strangers()) {
          const res = await get(cart, '?ids[]=cart_pix', headers);
          assert.equal(res.statusCode, 403, JSON.stringify(headers));
          assert.equal(res.json().code, 'forbidden');
        }
        assert.equal((await get(randomUUID(), '?ids[]=cart_pix')).statusCode, 404);
        assert.equal((await get('cart-1', '?ids[]=cart_pix')).statusCode, 422);
        assert.equal((await get(cart, '?ids[a]=cart_pix')).statusCode, 422);
      });
    });

    describe('GET /charges/{id}/last_payment', () => {
      const get = (uid: string, headers: Record<string, string> = SHOP) =>
        app.inject({ url: `/api/v1/charges/${uid}/last_payment`, headers });
      const charge = () => insertOrder(database, shop, { source: 'charge', due_date: '2030-01-10' });

      test('the most recent active or failed attempt: cancelled ones are skipped, ties go to the later id', async () => {
        const order = await charge();
        await insertPayment(database, shop, order.id, {
          gateway_id: 'old_failed',
          status: 'failed',
          created_at: minutesAgo(30),
        });
        const at = minutesAgo(20);
        await insertPayment(database, shop, order.id, { gateway_id: 'tie_first', status: 'failed', created_at: at });
        await insertPayment(database, shop, order.id, {
          gateway_id: 'tie_second',
          status: 'waiting_payment',
          amount_cents: 10_250,
          interest_cents: 250,
          late_interest_cents: 250,
          created_at: at,
        });
        await insertPayment(database, shop, order.id, {
          gateway_id: 'expired_pix',
          status: 'cancelled',
          created_at: minutesAgo(10),
        });
        const res = await get(order.uid);
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), {
          gateway_id: 'tie_second',
          amount: 102.5,
          interest: 2.5,
          paid_at: null,
          status: 'waiting_payment',
        });
      });

      test('a paid attempt carries paid_at; pending stays pending and is named by its uid; refunded reads cancelled', async () => {
        const paidOrder = await charge();
        const paidAt = new Date('2030-01-12T13:45:00.000Z');
        // interest is the late interest alone: the fine and card interest in interest_cents are not.
        await insertPayment(database, shop, paidOrder.id, {
          gateway_id: 'late_paid',
          status: 'paid',
          amount_cents: 10_833,
          interest_cents: 833,
          late_interest_cents: 333,
          paid_at: paidAt,
        });
        assert.deepEqual((await get(paidOrder.uid)).json(), {
          gateway_id: 'late_paid',
          amount: 108.33,
          interest: 3.33,
          paid_at: paidAt.toISOString(),
          status: 'paid',
        });
        const pendingOrder = await charge();
        const pending = await insertPayment(database, shop, pendingOrder.id, { status: 'pending' });
        assert.deepEqual((await get(pendingOrder.uid)).json(), {
          gateway_id: pending.uid,
          amount: 100,
          interest: 0,
          paid_at: null,
          status: 'pending',
        });
        const refundedOrder = await charge();
        await insertPayment(database, shop, refundedOrder.id, {
          gateway_id: 'gone',
          status: 'refunded',
          paid_at: paidAt,
        });
        assert.equal((await get(refundedOrder.uid)).json().status, 'cancelled');
      });

      test('204 with no body when there is no attempt, or only cancelled ones', async () => {
        is204(await get((await charge()).uid), 'no attempt');
        const cancelledOnly = await charge();
        await insertPayment(database, shop, cancelledOnly.id, { gateway_id: 'void', status: 'cancelled' });
        is204(await get(cancelledOnly.uid), 'cancelled only');
      });

      test('an order that is not a charge, or an unknown one, is 404; a malformed uid is 422', async () => {
        const plain = await insertOrder(database, shop);
        await insertPayment(database, shop, plain.id, { gateway_id: 'not_a_charge', status: 'paid' });
        assert.equal((await get(plain.uid)).statusCode, 404);
        assert.equal((await get(randomUUID())).statusCode, 404);
        assert.equal((await get('12345')).statusCode, 422);
      });

      test('another account’s origin or key, or no origin, is 403; the owner’s key is enough', async () => {
        const order = await charge();
        await insertPayment(database, shop, order.id, { gateway_id: 'guarded', status: 'paid' });
        for (const headers of strangers()) {
          assert.equal((await get(order.uid, headers)).statusCode, 403, JSON.stringify(headers));
        }
        assert.equal((await get(order.uid, bearer(shop.apiKey))).json().gateway_id, 'guarded');
      });
    });
  });
}
