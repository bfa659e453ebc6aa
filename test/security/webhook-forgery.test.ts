import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { signatureHeader } from '../../src/gateways/gateway-b/index.ts';
import { startTestApp } from '../support/app.ts';
import { insertCompany } from '../support/catalog-fixtures.ts';
import { publicTables, snapshot } from '../support/db-snapshot.ts';
import { engines } from '../support/engines.ts';
import { createMerchant, insertCharge, type Merchant } from '../support/pay-fixtures.ts';
import { basic, runWebhookJobs, storeCredentials, type WebhookCredentials } from '../support/webhooks-fixtures.ts';

/**
 * Forged deliveries to the authenticated receivers: gateway_a, the bank and invoicing (HTTP Basic per
 * company) and gateway_b (timestamped HMAC). One account with two companies, each with its own
 * credentials, so "another company's credentials" means a sibling company, not only another account.
 * Every forgery is a 401, and none of them leaves a row behind.
 */
const now = () => Math.floor(Date.now() / 1000);

for (const engine of engines()) {
  describe(`webhook forgery on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let first: Merchant;
    let second: Merchant;
    let firstKeys: WebhookCredentials;
    let secondKeys: WebhookCredentials;
    let secondOrderUid: string;

    const send = (url: string, headers: Record<string, string>, body: string | object) =>
      app.inject({
        method: 'POST',
        url: `/api/v1${url}`,
        headers: { 'content-type': 'application/json', ...headers },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      } as InjectOptions);
    const refusedWith = async (
      code: string,
      responses: Array<Promise<{ statusCode: number; json(): { code: string } }>>,
    ) => {
      for (const [index, response] of (await Promise.all(responses)).entries()) {
        assert.equal(response.statusCode, 401, `case ${index}`);
        assert.equal(response.json().code, code, `case ${index}`);
      }
    };

    before(async () => {
      database = await engine.open();
      const started = await startTestApp(database);
      app = started.app;
      first = await createMerchant(database, started.config);
      second = { ...first, companyId: await insertCompany(database, first), slug: `${first.slug}-two` };
      firstKeys = await storeCredentials(database, started.config, first);
      secondKeys = await storeCredentials(database, started.config, second);
      secondOrderUid = (await insertCharge(database, second)).uid;
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('gateway_a: no, wrong, swapped-receiver or sibling-company Basic credentials are refused', async () => {
      const event = (companyId: number) => ({
        id: 'evt_forged_a',
        type: 'charge.paid',
        data: { id: 'ch_forged', metadata: { company_id: String(companyId) } },
      });
      const { username, password } = firstKeys.gatewayA;
      await refusedWith('invalid_credentials', [
        send('/webhooks', {}, event(first.companyId)),
        send('/webhooks', basic(username, `${password}x`), event(first.companyId)),
        send('/webhooks', basic(username.toUpperCase(), password), event(first.companyId)),
        send(
          '/webhooks',
          { authorization: `Basic ${Buffer.from(`${username}${password}`).toString('base64')}` },
          event(first.companyId),
        ),
        send('/webhooks', { authorization: `Bearer ${password}` }, event(first.companyId)),
        send('/webhooks', basic(firstKeys.bank.username, firstKeys.bank.password), event(first.companyId)),
        send('/webhooks', basic(username, password), event(second.companyId)),
        send('/webhooks', basic(secondKeys.gatewayA.username, secondKeys.gatewayA.password), event(first.companyId)),
      ]);
    });

    test('bank: the sibling company’s path with this company’s credentials, and wrong credentials, are refused', async () => {
      const event = {
        id: 'evt_forged_bank',
        type: 'pix.received',
        data: { gateway_id: 'pix_forged', amount: 10_000, paid_at: new Date().toISOString() },
      };
      await refusedWith('invalid_credentials', [
        send(`/webhooks/${second.companyId}/bank`, basic(firstKeys.bank.username, firstKeys.bank.password), event),
        send(`/webhooks/${first.companyId}/bank`, basic(secondKeys.bank.username, secondKeys.bank.password), event),
        send(
          `/webhooks/${first.companyId}/bank`,
          basic(firstKeys.gatewayA.username, firstKeys.gatewayA.password),
          event,
        ),
        send(`/webhooks/${first.companyId}/bank`, basic(firstKeys.bank.username, ''), event),
      ]);
    });

    test('invoicing: one company’s username with another’s password, or a wrong one, is refused', async () => {
      const event = {
        id: 'evt_forged_invoice',
        type: 'invoice.authorized',
        data: { order_id: secondOrderUid, invoice: { id: 'nf-forged', type: 'nfse', amount: 10_000 } },
      };
      await refusedWith('invalid_credentials', [
        send('/webhooks/invoicing', basic(firstKeys.invoicing.username, secondKeys.invoicing.password), event),
        send('/webhooks/invoicing', basic(firstKeys.invoicing.username, 'guess'), event),
        send('/webhooks/invoicing', basic('no-such-user', firstKeys.invoicing.password), event),
        send('/webhooks/invoicing', {}, event),
      ]);
    });

    test('invoicing: valid credentials of one company cannot bill the sibling company’s order', async () => {
      const event = {
        id: 'evt_sibling_invoice',
        type: 'invoice.authorized',
        data: { order_id: secondOrderUid, invoice: { id: 'nf-sibling', type: 'nfse', amount: 10_000 } },
      };
      const res = await send(
        '/webhooks/invoicing',
        basic(firstKeys.invoicing.username, firstKeys.invoicing.password),
        event,
      );
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'received' });
      await runWebhookJobs(database);
      const stored = await database.db
        .selectFrom('webhook_events')
        .select('status')
        .where('external_event_id', '=', 'evt_sibling_invoice')
        .executeTakeFirstOrThrow();
      assert.equal(stored.status, 'ignored');
      const order = await database.db
        .selectFrom('orders')
        .select('status')
        .where('uid', '=', secondOrderUid)
        .executeTakeFirstOrThrow();
      assert.equal(order.status, 'pending');
      assert.equal((await database.db.selectFrom('invoices').select('id').execute()).length, 0);
    });

    test('gateway_b: a tampered body, a wrong or sibling secret, a replayed old timestamp, a future one and malformed headers are refused', async () => {
      const url = `/webhooks/${first.companyId}/gateway_b`;
      const body = JSON.stringify({
        id: 'evt_forged_b',
        object: 'event',
        type: 'charge.succeeded',
        created: 1,
        data: { object: { id: 'ch_forged', object: 'charge' } },
      });
      const tampered = body.replace('ch_forged', 'ch_other0');
      const secret = firstKeys.gatewayB;
      const t = now();
      const v1 = (key: string, timestamp: number, payload = body) =>
        createHmac('sha256', key).update(`${timestamp}.${payload}`).digest('hex');
      const signed = (headerValue: string, payload = body) =>
        send(url, { 'gateway-b-signature': headerValue }, payload);
      await refusedWith('invalid_signature', [
        signed(signatureHeader(secret, body, t), tampered),
        signed(signatureHeader('whsec_guess', body, t)),
        signed(signatureHeader(secondKeys.gatewayB, body, t)),
        signed(signatureHeader(secret, body, t - 301)),
        signed(signatureHeader(secret, body, t - 86_400)),
        signed(signatureHeader(secret, body, t + 3_600)),
        signed(`t=${t - 301},v1=${v1(secret, t)}`),
        signed(`v1=${v1(secret, t)}`),
        signed(`t=${t}`),
        signed(`t=${t},v0=${v1(secret, t)}`),
        signed(`t=${t},v1=${v1(secret, t).toUpperCase().slice(0, 63)}`),
        signed(`t=abc,v1=${v1(secret, t)}`),
        send(url, {}, body),
        send(
          `/webhooks/${second.companyId}/gateway_b`,
          { 'gateway-b-signature': signatureHeader(secret, body, t) },
          body,
        ),
      ]);
    });

    test('nothing that was refused left a row; a genuine delivery is accepted once and its replay is a duplicate', async () => {
      const tables = await publicTables(database);
      const before = await snapshot(database, tables);
      await send(
        `/webhooks/${first.companyId}/gateway_b`,
        { 'gateway-b-signature': signatureHeader('whsec_guess', '{}', now()) },
        '{}',
      );
      assert.deepEqual(await snapshot(database, tables), before);
      const forgedIds = ['evt_forged_a', 'evt_forged_bank', 'evt_forged_invoice', 'evt_forged_b'];
      const stored = await database.db
        .selectFrom('webhook_events')
        .select('external_event_id')
        .where('external_event_id', 'in', forgedIds)
        .execute();
      assert.deepEqual(stored, []);

      const body = JSON.stringify({
        id: 'evt_genuine_b',
        object: 'event',
        type: 'customer.created',
        created: 1,
        data: { object: { id: 'cus_1', object: 'customer' } },
      });
      const genuine = () =>
        send(
          `/webhooks/${first.companyId}/gateway_b`,
          { 'gateway-b-signature': signatureHeader(firstKeys.gatewayB, body, now()) },
          body,
        );
      assert.deepEqual((await genuine()).json(), { status: 'received' });
      assert.deepEqual((await genuine()).json(), { status: 'duplicate' });
      await runWebhookJobs(database);
      const genuineRows = await database.db
        .selectFrom('webhook_events')
        .select('status')
        .where('external_event_id', '=', 'evt_genuine_b')
        .execute();
      assert.deepEqual(genuineRows, [{ status: 'ignored' }]);
    });
  });
}
