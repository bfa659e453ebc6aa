import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, startTestApp } from '../support/app.ts';
import { publicTables, snapshot, type Snapshot } from '../support/db-snapshot.ts';
import { engines } from '../support/engines.ts';
import { insertPayment } from '../support/catalog-fixtures.ts';
import { insertCharge, type Merchant, createMerchant } from '../support/pay-fixtures.ts';

/** Classic SQL injection payloads, plus quotes and wildcards that only a literal match keeps harmless. */
const INJECTIONS = [
  "' OR '1'='1",
  "1' OR 1=1--",
  "'; DROP TABLE orders;--",
  '1; DELETE FROM products',
  "' UNION SELECT key_hash::text FROM api_keys--",
  "%' OR '%'='",
  '\\',
  '$$; SELECT 1; $$',
  "'||(SELECT string_agg(key_hash::text, ',') FROM api_keys)||'",
  'ʼ OR 1=1 --',
  '1)) OR ((1=1',
  '*/ OR /* 1=1',
];

/** Raw HTTP, so headers and sizes are exactly what a hostile client sends (fetch would refuse some). */
function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // A fresh connection each time: the server closes one after refusing its headers.
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (options.body !== undefined && options.chunked) {
      const body = Buffer.from(options.body);
      for (let offset = 0; offset < body.length; offset += 64 * 1024)
        req.write(body.subarray(offset, offset + 64 * 1024));
    } else if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

const nested = (depth: number, leaf: string) => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

for (const engine of engines()) {
  describe(`hostile input on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let base: string;
    let shop: Merchant;
    let chargeUid: string;
    let paymentId: number;
    let tables: string[];
    let before_: Snapshot;

    before(async () => {
      database = await engine.open();
      const started = await startTestApp(database, { BODY_LIMIT_BYTES: '65536' });
      app = started.app;
      base = await app.listen({ port: 0, host: '127.0.0.1' });
      shop = await createMerchant(database, started.config);
      const charge = await insertCharge(database, shop);
      chargeUid = charge.uid;
      paymentId = (
        await insertPayment(database, shop, charge.id, {
          status: 'paid',
          method: 'credit_card',
          gateway_id: 'ch_hostile',
        })
      ).id;
      assert.equal((await app.inject({ url: '/api/v1/orders', headers: bearer(shop.apiKey) })).statusCode, 200); // records the key's first use
      tables = await publicTables(database);
      before_ = await snapshot(database, tables);
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    const asShop = () => bearer(shop.apiKey);
    const get = (path: string, headers: Record<string, string> = asShop()) =>
      app.inject({ url: `/api/v1${path}`, headers });

    test('SQL injection in q, meta[], filters and path ids: 4xx or an empty result, never 5xx', async () => {
      const e = encodeURIComponent;
      let tried = 0;
      for (const payload of INJECTIONS) {
        const searches = [
          `/products?q=${e(payload)}`,
          `/checkout_pages?q=${e(payload)}`,
          `/orders?q=${e(payload)}`,
          `/orders?meta[]=${e(`k:${payload}`)}`,
          `/orders?meta[]=${e(`${payload}:v`)}`,
        ];
        for (const path of searches) {
          const res = await get(path);
          tried++;
          assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
          const body = res.json();
          assert.deepEqual(Array.isArray(body) ? body : body.data, [], `${path} matched rows`);
        }
        const refused = [
          `/orders?status[]=${e(payload)}`,
          `/orders?company_ids[]=${e(payload)}`,
          `/orders?cart_page_uuids[]=${e(payload)}`,
          `/orders?period_date_filter=${e(payload)}`,
          `/orders?initial_date=${e(payload)}`,
          `/orders?limit=${e(payload)}`,
          `/checkout_pages?product_ids[]=${e(payload)}`,
          `/products/${e(payload)}`,
          `/orders/${e(payload)}`,
          `/checkout_pages/${e(payload)}`,
          `/carts/${e(payload)}`,
          `/charges/${e(payload)}`,
        ];
        for (const path of refused) {
          const res = await get(path);
          tried++;
          assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${path}: ${res.statusCode} ${res.body}`);
        }
        const coupon = await get(`/coupons/${e(payload)}/validate?product_id=${shop.productId}`, {
          origin: 'https://shop.example',
        });
        const plans = await get(`/payment_plans?charge_id=${chargeUid}&coupon=${e(payload)}`, {
          origin: 'https://shop.example',
        });
        const slots = await get(`/companies/${e(payload)}/available_schedules?date=${e(payload)}`);
        tried += 3;
        assert.equal(coupon.statusCode, 422, coupon.body);
        assert.ok([200, 422].includes(plans.statusCode), plans.body);
        assert.deepEqual([slots.statusCode, slots.json()], [200, []]);
      }
      assert.equal(tried, INJECTIONS.length * 20);
    });

    test('the NUL character, which PostgreSQL cannot store, is a 422 wherever it appears', async () => {
      const cases = [
        get('/products?q=a%00b'),
        get('/orders?q=%00'),
        get('/orders?meta[]=k%00:v'),
        get(`/coupons/A%00B/validate?product_id=${shop.productId}`, { origin: 'https://shop.example' }),
        app.inject({
          method: 'POST',
          url: '/api/v1/products',
          headers: asShop(),
          payload: { name: 'a\u0000b', value: 1 },
        }),
        app.inject({
          method: 'POST',
          url: '/api/v1/customers',
          headers: asShop(),
          payload: { email: 'nul@example.com', name: 'x\u0000', phone: '11999999999' },
        }),
        app.inject({
          method: 'POST',
          url: '/api/v1/orders',
          headers: asShop(),
          payload: {
            customer: { email: 'nul@example.com' },
            main_product_id: shop.productId,
            meta: { 'k\u0000': 'v' },
          },
        }),
        app.inject({
          method: 'POST',
          url: '/api/v1/webhooks/platform',
          headers: { 'content-type': 'application/json' },
          payload: '{"id":"evt\\u0000","type":"payment.reconcile_requested","data":{}}',
        }),
      ];
      for (const res of await Promise.all(cases)) {
        assert.equal(res.statusCode, 422, res.body);
        const body = res.json();
        assert.ok(body.code === 'validation_failed' || /NUL/.test(body.error), res.body); // coupon validation answers { error }
      }
    });

    test('deep JSON is refused with 422 (a card number hidden deep inside is never stored); wide JSON is validated like any other', async () => {
      const send = (url: string, payload: string) =>
        app.inject({ method: 'POST', url, headers: { ...asShop(), 'content-type': 'application/json' }, payload });
      const order = (meta: string) =>
        `{"customer":{"email":"deep@example.com"},"main_product_id":${shop.productId},"meta":${meta}}`;
      for (const res of [
        await send('/api/v1/orders', order(nested(40, '"4111111111111111"'))),
        await send('/api/v1/orders', order(nested(3_000, '1'))),
        await send('/api/v1/orders', order(`{"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`)),
        await send('/api/v1/products', '['.repeat(30_000) + ']'.repeat(30_000)),
        await send('/api/v1/webhooks/platform', nested(1_000, '1')),
      ]) {
        assert.equal(res.statusCode, 422, res.body.slice(0, 300));
      }
      const wide = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`k${i}`, 'v']));
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers: asShop(),
        payload: { name: 'Wide', value: 1, ...wide },
      });
      assert.equal(res.statusCode, 422, 'unknown fields');
      assert.equal(res.json().code, 'validation_failed');
    });

    test('oversized bodies get 413 over real HTTP, with and without Content-Length, on API routes and webhook receivers', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(70_000), value: 1 });
      for (const [path, headers] of [
        ['/api/v1/products', asShop()],
        ['/api/v1/webhooks/platform', {}],
        [`/api/v1/webhooks/${shop.companyId}/bank`, {}],
      ] as const) {
        for (const chunked of [false, true]) {
          const res = await rawRequest(`${base}${path}`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: big,
            chunked,
          });
          assert.equal(res.status, 413, `${path} chunked=${chunked}: ${res.body}`);
          assert.equal(JSON.parse(res.body).code, 'payload_too_large');
        }
      }
    });

    test('huge headers and URLs are refused by the HTTP layer with 431; a long but legal header is a clean 4xx', async () => {
      const headerFlood = await rawRequest(`${base}/api/v1/products`, {
        headers: { ...asShop(), 'x-padding': 'a'.repeat(20_000) },
      });
      assert.equal(headerFlood.status, 431);
      const manyHeaders = Object.fromEntries(Array.from({ length: 1_500 }, (_, i) => [`x-h${i}`, 'vvvvvvvvvv']));
      assert.equal((await rawRequest(`${base}/api/v1/products`, { headers: manyHeaders })).status, 431);
      assert.equal(
        (await rawRequest(`${base}/api/v1/products?q=${'a'.repeat(20_000)}`, { headers: asShop() })).status,
        431,
      );
      const longKey = await rawRequest(`${base}/api/v1/products`, {
        headers: { authorization: `Bearer ${'k'.repeat(10_000)}` },
      });
      assert.equal(longKey.status, 401);
      const longIdempotency = await rawRequest(`${base}/api/v1/orders`, {
        method: 'POST',
        headers: { ...asShop(), 'content-type': 'application/json', 'idempotency-key': 'i'.repeat(5_000) },
        body: '{}',
      });
      assert.equal(longIdempotency.status, 422, longIdempotency.body);
    });

    test('a refund whose body is JSON null is malformed, never a full refund', async () => {
      const res = await app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paymentId}/refund`,
        headers: { ...asShop(), 'content-type': 'application/json' },
        payload: 'null',
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().code, 'validation_failed');
    });

    test('a malformed URL or an over-long path parameter gets the standard error body, without the URL', async () => {
      for (const [path, status, code] of [
        ['/api/v1/products/%E0%A4%A', 400, 'malformed_request'],
        ['/api/v1/coupons/%ZZ4111111111111111/validate', 400, 'malformed_request'],
        [`/api/v1/products/${'9'.repeat(300)}`, 422, 'validation_failed'],
        [`/api/v1/charges/${'c'.repeat(201)}/pay`, 422, 'validation_failed'],
      ] as const) {
        const res = await rawRequest(`${base}${path}`, { headers: asShop() });
        assert.equal(res.status, status, res.body);
        const body = JSON.parse(res.body);
        assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'request_id']);
        assert.equal(body.code, code);
        assert.ok(!res.body.includes(path.slice(8, 30)), 'the URL is not quoted back');
      }
    });

    test('after all of it, the database is exactly as it was', async () => {
      assert.deepEqual(await snapshot(database, tables), before_);
    });
  });
}
