import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { bearer } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';

type Answer = { status: number; headers: IncomingHttpHeaders; body: string };

const ALLOWED = 'https://shop.example';
const preflightHeaders = (origin: string, method: string, headers = 'content-type,idempotency-key') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': headers,
});

for (const engine of engines()) {
  describe(`CORS on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let port: number;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      port = Number(new URL(await pay.app.listen({ port: 0, host: '127.0.0.1' })).port);
    });

    /** A real HTTP request to the listening service, as a browser would send it. */
    const send = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
      new Promise<Answer>((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method,
            path: `/api/v1${path}`,
            headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
            );
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    const noCors = (answer: Answer, what: string) => {
      for (const header of Object.keys(answer.headers))
        assert.ok(!header.startsWith('access-control-'), `${what}: ${header}`);
    };
    const pixPayment = () => ({
      checkout_page_id: merchant.pageId,
      products: [{ id: merchant.productId, quantity: 1 }],
      customer_email: 'cors@example.com',
      payment_plan_id: `${merchant.pixPlanId}-1`,
    });

    test('a preflight of a public endpoint answers 204 with the methods, the two request headers and a max-age, for the asking origin', async () => {
      const answer = await send('OPTIONS', '/payments', preflightHeaders(ALLOWED, 'POST'));
      assert.equal(answer.status, 204, answer.body);
      assert.equal(answer.headers['access-control-allow-origin'], ALLOWED);
      assert.equal(answer.headers['access-control-allow-methods'], 'POST');
      assert.equal(answer.headers['access-control-allow-headers'], 'Content-Type, Idempotency-Key');
      assert.equal(answer.headers['access-control-max-age'], '600');
      assert.match(String(answer.headers.vary), /Origin/);
      assert.equal(answer.headers['access-control-allow-credentials'], undefined);
      assert.equal(answer.body, '');

      const customers = await send('OPTIONS', '/customers', preflightHeaders(ALLOWED, 'POST', 'content-type'));
      assert.equal(customers.status, 204);
      assert.equal(customers.headers['access-control-allow-origin'], ALLOWED);
      const product = await send('OPTIONS', `/products/${merchant.productId}`, preflightHeaders(ALLOWED, 'GET'));
      assert.equal(product.headers['access-control-allow-methods'], 'GET, HEAD');
      // Only the public method of a path is offered: POST /carts/{id} is a key endpoint, GET /carts/{id} is public.
      const cart = await send('OPTIONS', `/carts/${crypto.randomUUID()}`, preflightHeaders(ALLOWED, 'POST'));
      assert.equal(cart.status, 204);
      assert.equal(cart.headers['access-control-allow-methods'], 'GET, HEAD');
      // No Authorization: a key never belongs in a browser.
      const withKey = await send(
        'OPTIONS',
        '/payments',
        preflightHeaders(ALLOWED, 'POST', 'authorization,content-type'),
      );
      assert.doesNotMatch(String(withKey.headers['access-control-allow-headers']), /authorization/i);
      // The upsell is callable from any origin (spec), so its preflight is answered for any origin too.
      const upsell = await send('OPTIONS', '/upsell', preflightHeaders('https://anywhere.example', 'POST'));
      assert.equal(upsell.status, 204);
      assert.equal(upsell.headers['access-control-allow-origin'], 'https://anywhere.example');
    });

    test('a POST with an Origin gets the origin back, Vary: Origin and the replay header exposed; the replay carries them too', async () => {
      const headers = { origin: ALLOWED, 'idempotency-key': `cors-${crypto.randomUUID()}` };
      const first = await send('POST', '/payments', headers, pixPayment());
      assert.equal(first.status, 200, first.body);
      assert.equal(first.headers['access-control-allow-origin'], ALLOWED);
      assert.match(String(first.headers.vary), /Origin/);
      assert.match(String(first.headers['access-control-expose-headers']), /Idempotent-Replayed/);
      const replay = await send('POST', '/payments', headers, pixPayment());
      assert.equal(replay.status, 200, replay.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.headers['access-control-allow-origin'], ALLOWED);
      assert.match(String(replay.headers['access-control-expose-headers']), /Idempotent-Replayed/);

      const product = await send('GET', `/products/${merchant.productId}`, { origin: ALLOWED });
      assert.equal(product.status, 200, product.body);
      assert.equal(product.headers['access-control-allow-origin'], ALLOWED);
    });

    test('access is still the host restriction’s: a disallowed origin gets its 403 (readable), its preflight changes nothing', async () => {
      const evil = 'https://evil.example';
      const preflight = await send('OPTIONS', '/customers', preflightHeaders(evil, 'POST'));
      assert.equal(preflight.status, 204);
      const refused = await send(
        'POST',
        '/customers',
        { origin: evil },
        { email: 'x@example.com', name: 'X', phone: '11999999999', checkout_page_id: merchant.pageId },
      );
      assert.equal(refused.status, 403, refused.body);
      assert.equal(refused.headers['access-control-allow-origin'], evil);
      const stored = await database.db
        .selectFrom('customers')
        .select('id')
        .where('email', '=', 'x@example.com')
        .execute();
      assert.deepEqual(stored, []);
    });

    test('no CORS for key endpoints, webhook receivers, or an Origin that is not an http(s) origin', async () => {
      const orders = await send('OPTIONS', '/orders', preflightHeaders(ALLOWED, 'GET'));
      assert.equal(orders.status, 404);
      noCors(orders, 'OPTIONS /orders');
      const listed = await send('GET', '/orders', { origin: ALLOWED, ...bearer(merchant.apiKey) });
      assert.equal(listed.status, 200);
      noCors(listed, 'GET /orders');
      const cartPage = await send(
        'POST',
        `/carts/${crypto.randomUUID()}`,
        { origin: ALLOWED, ...bearer(merchant.apiKey) },
        { payment_method: 'pix' },
      );
      noCors(cartPage, 'POST /carts/{id}');

      for (const path of [
        '/webhooks',
        `/webhooks/${merchant.companyId}/bank`,
        `/webhooks/${merchant.companyId}/gateway_b`,
        '/webhooks/platform',
      ]) {
        const preflight = await send('OPTIONS', path, preflightHeaders(ALLOWED, 'POST'));
        assert.equal(preflight.status, 404, path);
        noCors(preflight, `OPTIONS ${path}`);
        noCors(await send('POST', path, { origin: ALLOWED }, {}), `POST ${path}`);
      }

      for (const origin of ['null', 'https://shop.example/path', 'file://x']) {
        const preflight = await send('OPTIONS', '/payments', preflightHeaders(origin, 'POST'));
        assert.equal(preflight.status, 204);
        noCors(preflight, `preflight from ${origin}`);
        noCors(await send('GET', `/products/${merchant.productId}`, { origin }), `GET from ${origin}`);
      }
    });
  });
}
