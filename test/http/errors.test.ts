import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type LogCapture, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';

const VISA_TEST_CARD = '4111111111111111';

for (const engine of engines()) {
  describe(`error format on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let logs: LogCapture;
    let shop: Tenant;
    const post = (payload: string | object, headers: Record<string, string> = {}) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers: { ...bearer(shop.apiKey), 'content-type': 'application/json', ...headers },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
    const productCount = async () =>
      Number(
        (
          await database.db
            .selectFrom('products')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    before(async () => {
      database = await engine.open();
      ({ app, logs } = await startTestApp(database, { BODY_LIMIT_BYTES: '4096' }));
      shop = await createTenant(database);
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    function assertErrorBody(
      res: { statusCode: number; headers: Record<string, unknown>; json(): any },
      status: number,
      code: string,
    ) {
      assert.equal(res.statusCode, status);
      const body = res.json();
      assert.equal(body.code, code);
      assert.equal(typeof body.message, 'string');
      assert.ok(body.message.length > 0);
      assert.equal(body.request_id, res.headers['x-request-id']);
      return body;
    }

    test('an unknown route gets 404 not_found', async () => {
      assertErrorBody(await app.inject({ method: 'GET', url: '/api/v1/nothing-here' }), 404, 'not_found');
    });

    test('an unknown id gets 404 not_found', async () => {
      assertErrorBody(
        await app.inject({ method: 'GET', url: '/api/v1/products/999999', headers: bearer(shop.apiKey) }),
        404,
        'not_found',
      );
    });

    test('malformed JSON gets 400 malformed_request without echoing the body', async () => {
      const body = assertErrorBody(await post('{"name": "x", "value": 1,,}'), 400, 'malformed_request');
      assert.ok(!body.message.includes('value'));
    });

    test('missing and wrongly typed fields get 422 validation_failed with per-field details', async () => {
      const body = assertErrorBody(await post({ value: '12' }), 422, 'validation_failed');
      const fields = body.details.map((d: { field: string }) => d.field);
      assert.ok(fields.includes('body/name'), JSON.stringify(body.details));
      assert.ok(fields.includes('body/value'), JSON.stringify(body.details));
    });

    test('unknown fields, negative and out-of-range numbers, and too many decimals are refused', async () => {
      assertErrorBody(await post({ name: 'x', value: 1, surprise: true }), 422, 'validation_failed');
      assertErrorBody(await post({ name: 'x', value: -1 }), 422, 'validation_failed');
      assertErrorBody(await post({ name: 'x', value: 1e300 }), 422, 'validation_failed');
      assertErrorBody(await post({ name: 'x', value: 1.001 }), 422, 'validation_failed');
      assertErrorBody(await post({ name: 'x'.repeat(300), value: 1 }), 422, 'validation_failed');
    });

    test('an invalid path id gets 422, never 500', async () => {
      for (const id of ['abc', '-1', '0', '99999999999999999999', '1%27%20OR%201=1']) {
        const res = await app.inject({ method: 'GET', url: `/api/v1/products/${id}`, headers: bearer(shop.apiKey) });
        assertErrorBody(res, 422, 'validation_failed');
      }
    });

    test('an oversized body gets 413 payload_too_large', async () => {
      assertErrorBody(await post({ name: 'x', value: 1, description: 'y'.repeat(5000) }), 413, 'payload_too_large');
    });

    test('a non-JSON content type gets 415 unsupported_media_type', async () => {
      assertErrorBody(
        await post('name=x', { 'content-type': 'application/x-www-form-urlencoded' }),
        415,
        'unsupported_media_type',
      );
      // Text that happens to hold JSON is still not JSON: 415, not a 422 about the body's type.
      assertErrorBody(await post('{"name":"x"}', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    });

    test('a malformed query array gets 422, not 500', async () => {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/checkout_pages?product_ids[]=x&product_ids[]=2',
        headers: bearer(shop.apiKey),
      });
      assertErrorBody(res, 422, 'validation_failed');
      const deep = await app.inject({
        method: 'GET',
        url: '/api/v1/checkout_pages?q[a][b][c][d][e]=1',
        headers: bearer(shop.apiKey),
      });
      assertErrorBody(deep, 422, 'validation_failed');
    });

    test('a caller-supplied request id is echoed; an unsafe one is replaced', async () => {
      const kept = await app.inject({
        method: 'GET',
        url: '/api/v1/nothing',
        headers: { 'x-request-id': 'req-12345678' },
      });
      assert.equal(kept.json().request_id, 'req-12345678');
      const replaced = await app.inject({
        method: 'GET',
        url: '/api/v1/nothing',
        headers: { 'x-request-id': 'bad id <script>' },
      });
      assert.match(replaced.json().request_id, /^[0-9a-f-]{36}$/);
    });

    describe('raw card numbers', () => {
      test('are refused with 422 card_number_refused anywhere in the body, and nothing is stored', async () => {
        const before = await productCount();
        const payloads = [
          { name: VISA_TEST_CARD, value: 1 },
          { name: 'x', value: 1, description: `card 4111 1111 1111 1111 exp 12/30` },
          { name: 'x', value: 1, description: '5555-5555-5555-4444' },
          { name: 'x', value: 1, external_id: '378282246310005' },
        ];
        for (const payload of payloads) assertErrorBody(await post(payload), 422, 'card_number_refused');
        // Even where the schema would reject the field, the card check answers first.
        assertErrorBody(
          await post({ name: 'x', value: 1, card: { number: Number(VISA_TEST_CARD) } }),
          422,
          'card_number_refused',
        );
        assert.equal(await productCount(), before);
      });

      test('are refused in the query string too', async () => {
        const res = await app.inject({
          method: 'GET',
          url: `/api/v1/products?q=${VISA_TEST_CARD}`,
          headers: bearer(shop.apiKey),
        });
        assertErrorBody(res, 422, 'card_number_refused');
      });

      test('never appear in a log line, even in a malformed body', async () => {
        await post(`{"name": "${VISA_TEST_CARD}", "value": }`);
        await post({ name: VISA_TEST_CARD, value: 1 });
        assert.ok(logs.lines.length > 0);
        assert.ok(!logs.text.includes(VISA_TEST_CARD));
      });

      test('digit runs that are not card numbers pass: a failed Luhn, a timestamp, a CNPJ', async () => {
        for (const description of ['4111111111111112', '1732170000000', '11222333000181', 'pedido 2026-11-21']) {
          const res = await post({ name: 'ok', value: 1, description });
          assert.equal(res.statusCode, 200, `${description}: ${res.body}`);
        }
      });
    });

    test('no secret reaches the logs: the API key is redacted', async () => {
      await app.inject({ method: 'GET', url: '/api/v1/products', headers: bearer(shop.apiKey) });
      assert.ok(!logs.text.includes(shop.apiKey));
      assert.ok(logs.lines.every((line) => JSON.parse(line).reqId !== undefined || !line.includes('"req"')));
    });
  });
}
