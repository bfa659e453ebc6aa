import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { signatureHeader } from '../../src/gateways/gateway-b/index.ts';
import type { RunningSandboxes } from '../../src/gateways/sandbox/server.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { unseal } from '../../src/lib/crypto.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { deliverySettings } from '../../src/modules/notifications/delivery.job.ts';
import { createWorker } from '../../src/runtime.ts';
import { startLocalSandboxes, type LocalSandboxes } from '../../src/sandbox-runtime.ts';
import { bearer, LogCapture, testConfig } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import {
  CARDS,
  cardHashC,
  confirmationTokenB,
  createMerchant,
  insertPage,
  tokenA,
  type Merchant,
} from '../support/pay-fixtures.ts';
import { basic, storeCredentials, waitFor, type WebhookCredentials } from '../support/webhooks-fixtures.ts';

/**
 * One run of the service at the most verbose log level, with its worker and sandboxes, through every
 * path that handles a secret: API keys (header, query, X-Api-Key, invalid ones), Basic credentials and
 * signing secrets of the receivers (real deliveries and forged ones), gateway secret keys (outbound
 * calls, gateway failures), card tokens and hashes of the three gateways, an upsell offer token, the
 * metrics token and a raw card number. Then every line is scanned for every one of those values, and
 * for every secret sealed in the database.
 */
const ORIGIN = { origin: 'https://shop.example' };

/** Every sealed column of the database, unsealed: gateway keys, webhook secrets, saved-card references, notification secrets. */
async function sealedSecrets(database: Database, masterKey: Buffer): Promise<string[]> {
  const columns = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name::text, column_name::text FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name LIKE '%\\_encrypted' ESCAPE '\\'`.execute(database.db);
  const secrets: string[] = [];
  for (const { table_name, column_name } of columns.rows) {
    const { rows } = await sql<{
      value: string | null;
    }>`SELECT ${sql.ref(column_name)} AS value FROM ${sql.table(table_name)}`.execute(database.db);
    for (const { value } of rows) if (value) secrets.push(unseal(masterKey, value));
  }
  return secrets;
}

for (const engine of engines()) {
  describe(`no secret in any log line on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let config: Config;
    let app: FastifyInstance;
    let sandboxes: LocalSandboxes;
    let worker: Worker;
    let merchant: Merchant;
    let credentials: WebhookCredentials;
    const logs = new LogCapture();
    /** Every secret value the run handled, by what it is. */
    const handled = new Map<string, string>();
    const use = (what: string, value: string) => {
      handled.set(value, what);
      return value;
    };
    let requests = 0;
    const send = async (options: InjectOptions) => {
      requests++;
      return app.inject(options);
    };

    before(async () => {
      database = await engine.open();
      config = testConfig({ METRICS_TOKEN: `metrics-${randomBytes(12).toString('hex')}`, LOG_LEVEL: 'trace' });
      merchant = await createMerchant(database, config);
      credentials = await storeCredentials(database, config, merchant);
      let url: string | undefined;
      sandboxes = await startLocalSandboxes(database, config, () => url);
      const logger = createLogger('trace', logs);
      app = await buildApp({ config, database, logger, gatewayUrls: sandboxes.urls });
      url = await app.listen({ port: 0, host: '127.0.0.1' });
      worker = createWorker(database, logger, {
        masterKey: config.masterKey,
        gatewayUrls: sandboxes.urls,
        clock: () => new Date(),
        notifications: deliverySettings(config),
      });
      worker.start();
    });
    after(async () => {
      await app.close();
      await worker.stop();
      await sandboxes.close();
      await database.close();
    });

    test('a run through every secret-handling path', async () => {
      const tokenizer = {
        baseUrlFor: (name: keyof LocalSandboxes['urls']) => sandboxes.urls[name],
      } as unknown as RunningSandboxes;
      const key = use('API key', merchant.apiKey);
      use('API key secret part', key.split('_').slice(2).join('_'));
      use('master key', config.masterKey.toString('hex'));
      use('metrics token', config.metricsToken!);
      use('raw card number', CARDS.approved);
      const db = database.db;
      const pageA = await insertPage(db, merchant, {
        gateway: 'gateway_a',
        products: [merchant.productId],
        plans: [merchant.cardPlanId, merchant.pixPlanId],
        upsellProductId: merchant.upsellProductId,
      });
      const pageB = await insertPage(db, merchant, {
        gateway: 'gateway_b',
        products: [merchant.productId],
        plans: [merchant.cardPlanId, merchant.pixPlanId],
      });
      const pageC = await insertPage(db, merchant, {
        gateway: 'gateway_c',
        products: [merchant.productId],
        plans: [merchant.cardPlanId],
      });
      const pay = (page: string, fields: Record<string, unknown>) =>
        send({
          method: 'POST',
          url: '/api/v1/payments',
          headers: ORIGIN,
          payload: {
            checkout_page_id: page,
            products: [{ id: merchant.productId, quantity: 1 }],
            customer_email: 'logs@example.com',
            payment_plan_id: `${merchant.cardPlanId}-1`,
            ...fields,
          },
        });

      // API keys: valid, invalid, in the query string and in an X-Api-Key header.
      assert.equal((await send({ url: '/api/v1/products', headers: bearer(key) })).statusCode, 200);
      const wrongKey = use(
        'invalid API key',
        `ck_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`,
      );
      assert.equal((await send({ url: '/api/v1/orders', headers: bearer(wrongKey) })).statusCode, 401);
      assert.equal(
        (await send({ url: `/api/v1/orders?api_key=${key}&token=${key}`, headers: { 'x-api-key': key } })).statusCode,
        401,
      );
      assert.equal((await send({ url: '/metrics', headers: bearer(config.metricsToken!) })).statusCode, 200);

      // Cards: a token per gateway, a gateway failure, a raw card number in the body and in the URL.
      const cardA = use('gateway_a card token', await tokenA(tokenizer));
      const paidA = await pay(pageA, { credit_card_0_token: cardA });
      assert.equal(paidA.statusCode, 200, paidA.body);
      const offer = use('upsell offer token', paidA.json().offer);
      assert.equal((await send({ method: 'POST', url: '/api/v1/upsell', payload: { offer } })).statusCode, 200);
      assert.equal((await send({ url: `/api/v1/products?offer=${offer}`, headers: bearer(key) })).statusCode, 422); // an unknown parameter, logged with its URL
      const cardB = use('gateway_b confirmation token', await confirmationTokenB(tokenizer));
      assert.equal((await pay(pageB, { confirmation_token_id: cardB })).statusCode, 200);
      const hashC = use('gateway_c card hash', await cardHashC(database, tokenizer, merchant));
      assert.equal((await pay(pageC, { credit_card_0_token: hashC })).statusCode, 200);
      const failing = use('gateway_a token of a failing card', await tokenA(tokenizer, CARDS.gatewayError));
      assert.ok((await pay(pageA, { credit_card_0_token: failing })).statusCode >= 400);
      assert.equal((await pay(pageA, { credit_card_0_token: CARDS.approved })).statusCode, 422);
      assert.equal((await send({ url: `/api/v1/products?q=${CARDS.approved}`, headers: bearer(key) })).statusCode, 422);

      // Receivers: real deliveries from the sandboxes (Basic for gateway_a, a signature for gateway_b), and forged ones.
      for (const [page, gateway] of [
        [pageA, 'gateway_a'],
        [pageB, 'gateway_b'],
      ] as const) {
        const pix = await pay(page, { payment_plan_id: `${merchant.pixPlanId}-1` });
        const gatewayId = pix.json().payments[0] as string;
        assert.equal(
          (await fetch(`${sandboxes.urls[gateway]}/sandbox/charges/${gatewayId}/confirm`, { method: 'POST' })).status,
          200,
        );
        await waitFor(async () => {
          const row = await db
            .selectFrom('payments as p')
            .innerJoin('orders as o', 'o.id', 'p.order_id')
            .select('o.status')
            .where('p.gateway_id', '=', gatewayId)
            .executeTakeFirstOrThrow();
          return row.status === 'paid' ? true : undefined;
        });
      }
      const gatewayBBody = JSON.stringify({
        id: 'evt_logs_b',
        object: 'event',
        type: 'customer.created',
        created: 1,
        data: { object: { id: 'cus_1', object: 'customer' } },
      });
      const signed = signatureHeader(credentials.gatewayB, gatewayBBody, Math.floor(Date.now() / 1000));
      assert.equal(
        (
          await send({
            method: 'POST',
            url: `/api/v1/webhooks/${merchant.companyId}/gateway_b`,
            headers: { 'content-type': 'application/json', 'gateway-b-signature': signed },
            payload: gatewayBBody,
          })
        ).statusCode,
        200,
      );
      use('gateway_b signature header', signed);
      const bankAuth = basic(credentials.bank.username, credentials.bank.password);
      use('bank Basic header', bankAuth.authorization.slice('Basic '.length));
      assert.equal(
        (
          await send({
            method: 'POST',
            url: `/api/v1/webhooks/${merchant.companyId}/bank`,
            headers: bankAuth,
            payload: { id: 'evt_logs_bank', type: 'statement.ready', data: {} },
          })
        ).statusCode,
        200,
      );
      const invoicing = basic(credentials.invoicing.username, credentials.invoicing.password);
      assert.equal(
        (
          await send({
            method: 'POST',
            url: '/api/v1/webhooks/invoicing',
            headers: invoicing,
            payload: { id: 'evt_logs_nf', type: 'invoice.other', data: {} },
          })
        ).statusCode,
        200,
      );
      const guessed = use('guessed webhook password', `guess-${randomBytes(8).toString('hex')}`);
      assert.equal(
        (
          await send({
            method: 'POST',
            url: '/api/v1/webhooks',
            headers: basic(credentials.gatewayA.username, guessed),
            payload: { id: 'e', type: 'charge.paid', data: { metadata: { company_id: String(merchant.companyId) } } },
          })
        ).statusCode,
        401,
      );

      // The worker has run the queued jobs (webhook processing, notifications) with the same logger.
      await waitFor(async () => {
        const pending = await db
          .selectFrom('jobs')
          .select('id')
          .where('status', 'in', ['queued', 'running'])
          .where('run_at', '<=', new Date())
          .execute();
        return pending.length === 0 ? true : undefined;
      }, 20_000);
    });

    test('not one log line holds any of those values, nor any secret sealed in the database', async () => {
      for (const secret of await sealedSecrets(database, config.masterKey))
        if (!handled.has(secret)) handled.set(secret, 'a secret sealed in the database');
      assert.ok(handled.size >= 20, `${handled.size} secrets`);
      const text = logs.text;
      for (const [secret, what] of handled) {
        assert.ok(secret.length >= 8, `${what} is long enough to search for`);
        const line = logs.lines.find((candidate) => candidate.includes(secret));
        assert.equal(line, undefined, `${what} appears in a log line: ${line?.slice(0, 300)}`);
      }
      // The scan read the run's logs: every request is there, with its redacted URL.
      assert.ok(logs.lines.filter((line) => line.includes('"incoming request"')).length >= requests, 'request lines');
      assert.match(text, /api_key=\[Redacted\]/);
      assert.match(text, /offer=\[Redacted\]/);
    });
  });
}
