import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { registerErrorHandling } from '../../src/http/error-handler.ts';
import { forbidden } from '../../src/http/errors.ts';
import { registerIdempotency } from '../../src/http/idempotency.ts';
import { assertPublicAccess } from '../../src/modules/accounts/authentication.ts';
import { bearer, createTenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import {
  insertCart,
  insertCharge,
  insertPage,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../support/pay-fixtures.ts';

/**
 * The host restriction of the pay entry points is decided before anything else that could answer for the
 * resource: before an Idempotency-Key is replayed or claimed (a refused caller never sees a stored answer,
 * and its 403 is never stored for the legitimate retry), and before body validation and business rules
 * (a refused caller learns nothing about the page, cart or charge).
 */
const EVIL = { origin: 'https://evil.example' };
const api = (path: string) => `/api/v1${path}`;

for (const engine of engines()) {
  describe(
    `host restriction before idempotency and validation on the pay routes on ${engine.name}`,
    { timeout: 120_000 },
    () => {
      let database: Database;
      let pay: PayApp;
      let merchant: Merchant;

      usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

      const post = (url: string, headers: Record<string, string>, payload: unknown, key?: string) =>
        pay.app.inject({
          method: 'POST',
          url: api(url),
          headers: { ...headers, ...(key ? { 'idempotency-key': key } : {}) },
          payload: payload as object,
        });
      const storedKey = (key: string) =>
        database.db
          .selectFrom('idempotency_keys')
          .selectAll()
          .where('account_id', '=', merchant.accountId)
          .where('key', '=', key)
          .executeTakeFirst();
      const pixPage = (email: string) => ({
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        customer_email: email,
        payment_plan_id: `${merchant.pixPlanId}-1`,
      });
      const ordersOfAccount = async () =>
        Number(
          (
            await database.db
              .selectFrom('orders')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('account_id', '=', merchant.accountId)
              .executeTakeFirstOrThrow()
          ).n,
        );

      test('a disallowed origin reusing a key and body gets 403, not the stored answer with its upsell offer', async () => {
        const pageId = await insertPage(database.db, merchant, {
          products: [merchant.productId],
          plans: [merchant.cardPlanId],
          upsellProductId: merchant.upsellProductId,
        });
        const body = {
          checkout_page_id: pageId,
          products: [{ id: merchant.productId, quantity: 1 }],
          customer_email: 'offer@example.com',
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
        };
        const first = await post('/payments', ORIGIN, body, 'origin-offer');
        assert.equal(first.statusCode, 200, first.body);
        assert.equal(typeof first.json().offer, 'string');
        for (const headers of [EVIL, {}, bearer((await createTenant(database)).apiKey)]) {
          const refused = await post('/payments', headers, body, 'origin-offer');
          assert.equal(refused.statusCode, 403, JSON.stringify(headers));
          assert.equal(refused.headers['idempotent-replayed'], undefined);
          assert.doesNotMatch(refused.body, /offer|order_status/);
        }
        const retry = await post('/payments', ORIGIN, body, 'origin-offer');
        assert.equal(retry.statusCode, 200);
        assert.equal(retry.headers['idempotent-replayed'], 'true');
        assert.deepEqual(retry.json(), first.json());
      });

      test('a 403 answered to a disallowed origin is not stored: the allowed retry under the key runs', async () => {
        const cartId = await insertCart(database, merchant);
        const charge = await insertCharge(database, merchant);
        const cases = [
          { url: '/payments', body: pixPage('first-evil@example.com') },
          { url: `/carts/${cartId}/pay`, body: { payment_plan_id: `${merchant.pixPlanId}-1` } },
          { url: `/charges/${charge.uid}/pay`, body: { payment_plan_id: `${merchant.pixPlanId}-1` } },
        ];
        for (const [index, { url, body }] of cases.entries()) {
          const key = `evil-first-${index}`;
          const refused = await post(url, EVIL, body, key);
          assert.equal(refused.statusCode, 403, url);
          assert.equal(await storedKey(key), undefined, url);
          const allowed = await post(url, ORIGIN, body, key);
          assert.equal(allowed.statusCode, 200, `${url}: ${allowed.body}`);
          assert.equal(allowed.headers['idempotent-replayed'], undefined, url);
          assert.equal((await storedKey(key))?.response_status, 200, url);
          const replay = await post(url, ORIGIN, body, key);
          assert.equal(replay.headers['idempotent-replayed'], 'true', url);
          assert.equal((await post(url, EVIL, body, key)).statusCode, 403, url);
        }
      });

      test('a disallowed origin gets 403, not 409 or 422, on a key in flight or reused with another body', async () => {
        const body = pixPage('held@example.com');
        assert.equal((await post('/payments', ORIGIN, body, 'origin-held')).statusCode, 200);
        assert.equal(
          (await post('/payments', EVIL, { ...body, customer_email: 'other@example.com' }, 'origin-held')).statusCode,
          403,
        );
        await database.db
          .updateTable('idempotency_keys')
          .set({ status: 'in_flight', locked_until: new Date(Date.now() + 60_000) })
          .where('account_id', '=', merchant.accountId)
          .where('key', '=', 'origin-held')
          .execute();
        assert.equal((await post('/payments', EVIL, body, 'origin-held')).statusCode, 403);
        assert.equal((await post('/payments', ORIGIN, body, 'origin-held')).statusCode, 409);
      });

      test('a disallowed origin gets 403 whatever the body: before schema validation, the page’s rules and the charge’s state', async () => {
        const cartId = await insertCart(database, merchant);
        const paid = await insertCharge(database, merchant, { status: 'paid' });
        const notACharge = randomUUID();
        await database.db
          .insertInto('orders')
          .values({
            uid: notACharge,
            account_id: merchant.accountId,
            company_id: merchant.companyId,
            source: 'api',
            status: 'pending',
            subtotal_cents: 100,
            total_cents: 100,
            date: '2026-01-01',
          })
          .execute();
        const before = await ordersOfAccount();
        const cases: Array<{ url: string; body: unknown; allowed: number }> = [
          // products missing: a business rule of the page (422 to an allowed origin)
          {
            url: '/payments',
            body: {
              checkout_page_id: merchant.pageId,
              customer_email: 'e@example.com',
              payment_plan_id: `${merchant.pixPlanId}-1`,
            },
            allowed: 422,
          },
          // schema violations: an unknown field, a malformed plan id
          { url: '/payments', body: { ...pixPage('e@example.com'), hacker: true }, allowed: 422 },
          { url: '/payments', body: { ...pixPage('e@example.com'), payment_plan_id: 'nope' }, allowed: 422 },
          { url: `/carts/${cartId}/pay`, body: { payment_plan_id: 'nope' }, allowed: 422 },
          { url: `/carts/${cartId}/pay`, body: [], allowed: 422 },
          // a paid charge, and an order that is not a charge (404 to an allowed origin)
          { url: `/charges/${paid.uid}/pay`, body: { payment_plan_id: `${merchant.pixPlanId}-1` }, allowed: 422 },
          { url: `/charges/${notACharge}/pay`, body: { payment_plan_id: `${merchant.pixPlanId}-1` }, allowed: 404 },
        ];
        for (const { url, body, allowed } of cases) {
          const refused = await post(url, EVIL, body);
          assert.equal(refused.statusCode, 403, `${url} ${JSON.stringify(body)}: ${refused.body}`);
          assert.doesNotMatch(refused.body, /products|payment_plan_id|hacker|paid|not found/i);
          assert.equal((await post(url, {}, body)).statusCode, 403, `${url} without an origin`);
          const control = await post(url, ORIGIN, body);
          assert.equal(
            control.statusCode,
            allowed,
            `${url} ${JSON.stringify(body)} from the allowed origin: ${control.body}`,
          );
        }
        assert.equal(await ordersOfAccount(), before);
      });

      test('an id that names nothing has no account to check against: 404 (or 422 for a malformed one) to any origin', async () => {
        const unknown = '00000000-0000-4000-8000-000000000000';
        for (const headers of [EVIL, ORIGIN]) {
          assert.equal(
            (await post('/payments', headers, { ...pixPage('u@example.com'), checkout_page_id: unknown })).statusCode,
            404,
          );
          assert.equal(
            (await post(`/carts/${unknown}/pay`, headers, { payment_plan_id: `${merchant.pixPlanId}-1` })).statusCode,
            404,
          );
          assert.equal(
            (
              await post(
                `/charges/${unknown}/pay`,
                headers,
                { payment_plan_id: `${merchant.pixPlanId}-1` },
                'unknown-charge',
              )
            ).statusCode,
            404,
          );
          assert.equal(
            (await post('/charges/not-a-uuid/pay', headers, { payment_plan_id: `${merchant.pixPlanId}-1` })).statusCode,
            422,
          );
          assert.equal(
            (
              await post('/payments', headers, {
                customer_email: 'u@example.com',
                payment_plan_id: `${merchant.pixPlanId}-1`,
              })
            ).statusCode,
            422,
          );
        }
      });
    },
  );

  describe(`Idempotency-Key never stores a 403 on ${engine.name}`, () => {
    test('a handler’s 403 under a claimed key is dropped, so the next request under the key runs', async () => {
      const database = await engine.open();
      try {
        const tenant = await createTenant(database);
        const app = Fastify();
        registerErrorHandling(app);
        registerIdempotency(app, database.db, () => new Date(), assertPublicAccess);
        let calls = 0;
        app.post('/thing', { config: { idempotency: { scope: async () => tenant.accountId } } }, async () => {
          calls += 1;
          if (calls === 1) throw forbidden('not for you');
          return { ok: true };
        });
        const send = () =>
          app.inject({ method: 'POST', url: '/thing', headers: { 'idempotency-key': 'k-403' }, payload: { a: 1 } });
        assert.equal((await send()).statusCode, 403);
        const second = await send();
        assert.equal(second.statusCode, 200);
        assert.equal(second.headers['idempotent-replayed'], undefined);
        assert.equal((await send()).headers['idempotent-replayed'], 'true');
        assert.equal(calls, 2);
        await app.close();
      } finally {
        await database.close();
      }
    });
  });
}
