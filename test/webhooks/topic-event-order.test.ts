import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createSign, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { stringToSign } from '../../src/modules/webhooks/sns-signature.ts';
import { engines } from '../support/engines.ts';
import { ORIGIN } from '../support/pay-fixtures.ts';
import { basic, runWebhookJobs, startWebhookApp, type WebhookApp } from '../support/webhooks-fixtures.ts';

const TOPIC = 'arn:aws:sns:sa-east-1:123456789012:payments';

/**
 * The topic receiver applies in the request: a message about a payment whose earlier event has not been applied
 * yet answers 503, so the sender retries it after that event.
 */
for (const engine of engines()) {
  describe(`topic message behind an earlier event of its payment on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let server: Server;
    let base: string;
    const dir = mkdtempSync(join(tmpdir(), 'sns-cert-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '2',
        '-subj',
        '/CN=sns.test',
      ],
      { stdio: 'ignore' },
    );
    const key = readFileSync(join(dir, 'key.pem'), 'utf8');

    before(async () => {
      database = await engine.open();
      server = createServer((_request, response) => response.end(readFileSync(join(dir, 'cert.pem'), 'utf8')));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      hooks = await startWebhookApp(database, {
        topic: { certHosts: ['127.0.0.1'], protocols: ['http:'], topicArns: [TOPIC], fetch: globalThis.fetch },
      });
    });
    after(async () => {
      await hooks.close();
      server.close();
      await database.close();
    });

    const signed = (message: unknown) => {
      const body = {
        Type: 'Notification',
        MessageId: randomUUID(),
        TopicArn: TOPIC,
        Message: JSON.stringify(message),
        Timestamp: new Date().toISOString(),
      };
      return {
        ...body,
        SignatureVersion: '2',
        SigningCertURL: `${base}/cert.pem`,
        Signature: createSign('RSA-SHA256').update(stringToSign(body)).sign(key, 'base64'),
      };
    };
    const sendTopic = (body: unknown) =>
      hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/topic',
        headers: { 'content-type': 'text/plain; charset=UTF-8' },
        payload: JSON.stringify(body),
      });

    test('an expiry relayed by the topic after a bank paid event not yet applied: 503, then applied in turn', async () => {
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: hooks.merchant.pageId,
          products: [{ id: hooks.merchant.productId, quantity: 1 }],
          customer_email: 'topic-order@example.com',
          payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
        },
      });
      const gatewayId = res.json().payments[0] as string;
      const paid = await hooks.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hooks.merchant.companyId}/bank`,
        headers: {
          'content-type': 'application/json',
          ...basic(hooks.credentials.bank.username, hooks.credentials.bank.password),
        },
        payload: JSON.stringify({
          id: `bank-${randomUUID()}`,
          type: 'pix.received',
          data: { gateway_id: gatewayId, amount: 10_000, paid_at: new Date().toISOString() },
        }),
      });
      assert.equal(paid.statusCode, 200, paid.body);
      const message = signed({
        source: 'bank',
        company_id: hooks.merchant.companyId,
        event: { id: `b-${randomUUID()}`, type: 'pix.expired', data: { gateway_id: gatewayId } },
      });
      const payment = () =>
        database.db
          .selectFrom('payments')
          .select('status')
          .where('gateway_id', '=', gatewayId)
          .executeTakeFirstOrThrow();

      const early = await sendTopic(message);
      assert.equal(early.statusCode, 503, early.body);
      assert.equal((await payment()).status, 'waiting_payment');

      await runWebhookJobs(database, { masterKey: hooks.config.masterKey });
      assert.equal((await payment()).status, 'paid');
      const retried = await sendTopic(message);
      assert.equal(retried.statusCode, 200, retried.body);
      const stored = await database.db
        .selectFrom('webhook_events')
        .select(['status', 'payment_ref'])
        .where('external_event_id', '=', message.MessageId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(stored, { status: 'processed', payment_ref: gatewayId });
      assert.equal((await payment()).status, 'paid');
    });
  });
}
