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
import { startWebhookApp, type WebhookApp } from '../support/webhooks-fixtures.ts';

const TOPIC = 'arn:aws:sns:sa-east-1:123456789012:payments';

/** A throwaway RSA key and self-signed certificate made with openssl, served with the SubscribeURL by a local server. */
function makeCertificate(): { key: string; cert: string } {
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
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
}

for (const engine of engines()) {
  describe(`topic receiver on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let server: Server;
    let base: string;
    const confirmations: string[] = [];
    const { key, cert } = makeCertificate();
    let failNext = false;

    before(async () => {
      database = await engine.open();
      server = createServer((request, response) => {
        if (request.url === '/cert.pem') return void response.end(cert);
        if (request.url?.startsWith('/confirm')) confirmations.push(request.url);
        response.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      hooks = await startWebhookApp(database, {
        topic: { certHosts: ['127.0.0.1'], protocols: ['http:'], topicArns: [TOPIC], fetch: globalThis.fetch },
        applyAction: async (db, input) => {
          if (failNext) {
            failNext = false;
            throw new Error('transient');
          }
          const { applyPaymentAction } = await import('../../src/modules/payments/attempts/gateway-actions.ts');
          return applyPaymentAction(db, input);
        },
      });
    });
    after(async () => {
      await hooks.close();
      server.close();
      await database.close();
    });

    const sign = <T extends Record<string, string>>(message: T, version: '1' | '2' = '2') => ({
      ...message,
      SignatureVersion: version,
      SigningCertURL: `${base}/cert.pem`,
      Signature: createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256')
        .update(stringToSign(message))
        .sign(key, 'base64'),
    });
    const send = (body: unknown, type = 'Notification') =>
      hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/topic',
        headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': type },
        payload: JSON.stringify(body),
      });
    const notification = (message: unknown) => ({
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: TOPIC,
      Message: JSON.stringify(message),
      Timestamp: new Date().toISOString(),
    });
    const payPix = async () => {
      const res = await hooks.app.inject({
        method: 'POST',
        url: '/api/v1/payments',
        headers: ORIGIN,
        payload: {
          checkout_page_id: hooks.merchant.pageId,
          products: [{ id: hooks.merchant.productId, quantity: 1 }],
          customer_email: 'topic@example.com',
          payment_plan_id: `${hooks.merchant.pixPlanId}-1`,
        },
      });
      return res.json().payments[0] as string;
    };
    const orderStatus = async (gatewayId: string) =>
      (
        await database.db
          .selectFrom('payments as p')
          .innerJoin('orders as o', 'o.id', 'p.order_id')
          .select('o.status')
          .where('p.gateway_id', '=', gatewayId)
          .executeTakeFirstOrThrow()
      ).status;

    test('SubscriptionConfirmation (SignatureVersion 1) is confirmed by GETting SubscribeURL', async () => {
      const message = sign(
        {
          Type: 'SubscriptionConfirmation',
          MessageId: randomUUID(),
          Token: 'tok',
          TopicArn: TOPIC,
          Message: 'confirm',
          SubscribeURL: `${base}/confirm?token=tok`,
          Timestamp: new Date().toISOString(),
        },
        '1',
      );
      const res = await send(message, 'SubscriptionConfirmation');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'confirmed' });
      assert.deepEqual(confirmations, ['/confirm?token=tok']);
    });

    test('a bank event notification pays the order once; a tampered, foreign-topic or foreign-host message is refused', async () => {
      const gatewayId = await payPix();
      const message = sign(
        notification({
          source: 'bank',
          company_id: hooks.merchant.companyId,
          event: {
            id: `b-${randomUUID()}`,
            type: 'pix.received',
            data: { gateway_id: gatewayId, amount: 10_000, paid_at: new Date().toISOString() },
          },
        }),
      );
      assert.equal((await send({ ...message, Message: message.Message.replace('10000', '1') })).statusCode, 403);
      assert.equal(
        (await send(sign({ ...notification({}), TopicArn: 'arn:aws:sns:sa-east-1:1:other' }))).statusCode,
        403,
      );
      assert.equal((await send({ ...message, SigningCertURL: 'http://evil.example/cert.pem' })).statusCode, 403);
      const res = await send(message);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'processed' });
      assert.equal(await orderStatus(gatewayId), 'paid');
      assert.deepEqual((await send(message)).json(), { status: 'duplicate' });
    });

    test('a gateway_c postback: a processing failure answers 503 and the retry of the same MessageId processes it', async () => {
      const gatewayId = await payPix();
      const payment = await database.db
        .selectFrom('payments')
        .select(['id', 'gateway_id'])
        .where('gateway_id', '=', gatewayId)
        .executeTakeFirstOrThrow();
      // The postback names a gateway_c transaction: point the payment at gateway_c for this test.
      await database.db
        .updateTable('payments')
        .set({ gateway: 'gateway_c', gateway_id: '987654' })
        .where('id', '=', payment.id)
        .returning('id')
        .execute();
      const postback = `postback_id=po_${randomUUID().slice(0, 8)}&event=transaction_status_changed&object=transaction&id=987654&old_status=waiting_payment&current_status=paid&desired_status=paid&transaction[id]=987654&transaction[status]=paid&transaction[amount]=10000&transaction[paid_amount]=10000&transaction[refunded_amount]=0&transaction[payment_method]=pix&transaction[date_updated]=${new Date().toISOString()}&transaction[metadata][company_id]=${hooks.merchant.companyId}`;
      const message = sign(notification({ source: 'gateway_c', company_id: hooks.merchant.companyId, postback }));
      failNext = true;
      const failed = await send(message);
      assert.equal(failed.statusCode, 503);
      assert.equal(await orderStatus('987654'), 'waiting_payment');
      const retried = await send(message);
      assert.equal(retried.statusCode, 200);
      assert.equal(await orderStatus('987654'), 'paid');
    });
  });
}
