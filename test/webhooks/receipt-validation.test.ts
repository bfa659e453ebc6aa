import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createSign, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { signatureHeader } from '../../src/gateways/gateway-b/index.ts';
import { MAX_AMOUNT_CENTS } from '../../src/http/amount-limits.ts';
import { stringToSign } from '../../src/modules/webhooks/sns-signature.ts';
import { engines } from '../support/engines.ts';
import { basic, startWebhookApp, type WebhookApp } from '../support/webhooks-fixtures.ts';

/**
 * An event the worker could never apply (an amount or date the database refuses, an id too long for the
 * dedup index, a topic message whose inner event is malformed) is refused at receipt: 422 in the error
 * format, nothing stored.
 */

const TOPIC = 'arn:aws:sns:sa-east-1:123456789012:payments';
/** Incompressible, so PostgreSQL cannot squeeze it under the btree row limit. */
const longId = () => randomBytes(6000).toString('base64');

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
  describe(`webhook receipt validation on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let hooks: WebhookApp;
    let server: Server;
    let certBase: string;
    const { key, cert } = makeCertificate();

    before(async () => {
      database = await engine.open();
      server = createServer((request, response) => response.end(request.url === '/cert.pem' ? cert : 'ok'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      certBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      hooks = await startWebhookApp(database, {
        topic: { certHosts: ['127.0.0.1'], protocols: ['http:'], topicArns: [TOPIC], fetch: globalThis.fetch },
      });
    });
    after(async () => {
      await hooks.close();
      server.close();
      await database.close();
    });

    const json = (payload: unknown) => (typeof payload === 'string' ? payload : JSON.stringify(payload));
    const bank = (payload: unknown) =>
      hooks.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hooks.merchant.companyId}/bank`,
        headers: {
          ...basic(hooks.credentials.bank.username, hooks.credentials.bank.password),
          'content-type': 'application/json',
        },
        payload: json(payload),
      });
    const gatewayA = (payload: unknown) =>
      hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: {
          ...basic(hooks.credentials.gatewayA.username, hooks.credentials.gatewayA.password),
          'content-type': 'application/json',
        },
        payload: json(payload),
      });
    const gatewayB = (payload: unknown) => {
      const body = json(payload);
      const signature = signatureHeader(hooks.credentials.gatewayB, body, Math.floor(Date.now() / 1000));
      return hooks.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hooks.merchant.companyId}/gateway_b`,
        headers: { 'content-type': 'application/json', 'gateway-b-signature': signature },
        payload: body,
      });
    };
    const sign = (message: Record<string, string>) => ({
      ...message,
      SignatureVersion: '2',
      SigningCertURL: `${certBase}/cert.pem`,
      Signature: createSign('RSA-SHA256').update(stringToSign(message)).sign(key, 'base64'),
    });
    const notification = (message: unknown, messageId: string = randomUUID()) =>
      sign({
        Type: 'Notification',
        MessageId: messageId,
        TopicArn: TOPIC,
        Message: JSON.stringify(message),
        Timestamp: new Date().toISOString(),
      });
    const topic = (body: unknown) =>
      hooks.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/topic',
        headers: { 'content-type': 'text/plain; charset=UTF-8' },
        payload: JSON.stringify(body),
      });

    const storedEvents = async () => (await database.db.selectFrom('webhook_events').select('id').execute()).length;
    /** Sends, and checks the answer is the receivers' 422 for an invalid payload with nothing stored. */
    const refused = async (what: string, send: () => Promise<LightMyRequestResponse>) => {
      const before = await storedEvents();
      const res = await send();
      assert.equal(res.statusCode, 422, `${what}: ${res.body.slice(0, 300)}`);
      assert.equal(res.json().code, 'validation_failed', what);
      assert.equal(await storedEvents(), before, `${what}: nothing stored`);
    };
    const accepted = async (what: string, send: () => Promise<LightMyRequestResponse>) => {
      const res = await send();
      assert.equal(res.statusCode, 200, `${what}: ${res.body.slice(0, 300)}`);
    };

    const chargeA = (type: string, data: Record<string, unknown>, id = `a-${randomUUID()}`) => ({
      id,
      type,
      data: { id: 'ch_receipt', metadata: { company_id: String(hooks.merchant.companyId) }, ...data },
    });
    const intentB = (type: string, object: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      id: `evt_${randomUUID()}`,
      type,
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'ch_receipt', payment_intent: 'pi_receipt', ...object } },
      ...extra,
    });
    const bankEvent = (type: string, data: Record<string, unknown>) => ({
      id: `b-${randomUUID()}`,
      type,
      data: {
        gateway_id: 'gw-receipt',
        refund_id: 'rf-receipt',
        amount: 10_000,
        paid_at: new Date().toISOString(),
        ...data,
      },
    });

    test('bank: a zero or over-the-cap amount and a paid_at outside 1900-01-01..9999-12-31 are refused; the bounds themselves are accepted', async () => {
      await refused('refund of 0', () => bank(bankEvent('pix.refunded', { amount: 0 })));
      await refused('negative paid amount', () => bank(bankEvent('pix.received', { amount: -1 })));
      await refused('amount over the cap', () => bank(bankEvent('boleto.paid', { amount: MAX_AMOUNT_CENTS + 1 })));
      await refused('paid_at in year 275760', () =>
        bank(bankEvent('pix.received', { paid_at: '+275760-09-13T00:00:00Z' })),
      );
      await refused('paid_at in year -10000', () =>
        bank(bankEvent('pix.received', { paid_at: '-010000-01-01T00:00:00Z' })),
      );
      await refused('paid_at before 1900', () => bank(bankEvent('pix.received', { paid_at: '1899-12-31T23:59:59Z' })));
      await accepted('amount at the cap, paid_at at the first instant', () =>
        bank(bankEvent('pix.received', { amount: MAX_AMOUNT_CENTS, paid_at: '1900-01-01T00:00:00Z' })),
      );
      await accepted('refund of 1 cent', () => bank(bankEvent('pix.refunded', { amount: 1 })));
    });

    test('gateway_a: a refund of -500 or "0", a paid amount of 0 and a paid_at of -8e12 unix seconds are refused', async () => {
      await refused('refund of -500', () =>
        gatewayA(chargeA('charge.refunded', { refunds: [{ id: 'rf', amount: -500 }] })),
      );
      await refused('refund of "0"', () =>
        gatewayA(chargeA('charge.refunded', { refunds: [{ id: 'rf', amount: '0' }] })),
      );
      await refused('refund over the cap', () =>
        gatewayA(chargeA('charge.refunded', { refunds: [{ id: 'rf', amount: MAX_AMOUNT_CENTS + 1 }] })),
      );
      await refused('paid amount of 0', () => gatewayA(chargeA('charge.paid', { paid_amount: 0 })));
      await refused('paid_at -8e12', () => gatewayA(chargeA('charge.paid', { paid_amount: 10_000, paid_at: -8e12 })));
      await refused('paid_at in year 275760', () =>
        gatewayA(chargeA('charge.paid', { paid_amount: 10_000, paid_at: '+275760-09-13T00:00:00Z' })),
      );
      await accepted('a refund of "500" in digits', () =>
        gatewayA(chargeA('charge.refunded', { refunds: [{ id: 'rf', amount: '500' }] })),
      );
    });

    test('gateway_b: a refund of -500 or 0, a received amount of 0 and a created time out of range are refused', async () => {
      await refused('refund of -500', () =>
        gatewayB(intentB('charge.refunded', { refunds: { data: [{ id: 're_1', amount: -500 }] } })),
      );
      await refused('refund of 0', () =>
        gatewayB(intentB('charge.refunded', { refunds: { data: [{ id: 're_1', amount: 0 }] } })),
      );
      await refused('amount_received of 0', () =>
        gatewayB(intentB('payment_intent.succeeded', { id: 'pi_receipt', amount_received: 0 })),
      );
      await refused('created -8e12', () =>
        gatewayB(
          intentB('payment_intent.succeeded', { id: 'pi_receipt', amount_received: 10_000 }, { created: -8e12 }),
        ),
      );
      await accepted('a refund of 500', () =>
        gatewayB(intentB('charge.refunded', { refunds: { data: [{ id: 're_1', amount: 500 }] } })),
      );
    });

    test('an event id over 200 characters or a type over 100 is refused by gateway_a, gateway_b and the topic MessageId; 200 characters are accepted', async () => {
      await refused('gateway_a long id', () => gatewayA(chargeA('order.paid', {}, longId())));
      await refused('gateway_a id of 201', () => gatewayA(chargeA('order.paid', {}, 'a'.repeat(201))));
      await refused('gateway_a long type', () => gatewayA(chargeA(`charge.${'x'.repeat(100_000)}`, {})));
      await refused('gateway_b long id', () => gatewayB({ ...intentB('charge.updated', {}), id: longId() }));
      await refused('gateway_b long type', () => gatewayB(intentB(`charge.${'x'.repeat(100)}`, {})));
      const ignoredBankEvent = {
        source: 'bank',
        company_id: hooks.merchant.companyId,
        event: { id: `b-${randomUUID()}`, type: 'statement.ready', data: {} },
      };
      await refused('topic long MessageId', () => topic(notification(ignoredBankEvent, longId())));
      await accepted('gateway_a id of 200', () => gatewayA(chargeA('order.paid', {}, 'a'.repeat(200))));
      await accepted('topic MessageId of 200', () => topic(notification(ignoredBankEvent, 'm'.repeat(200))));
    });

    test('topic: a signed message whose inner bank event or gateway_c postback is malformed is refused, not answered 503 for ever', async () => {
      const bankMessage = (event: unknown) =>
        notification({ source: 'bank', company_id: hooks.merchant.companyId, event });
      const missingFields = bankMessage({ id: 'x', type: 'pix.received', data: {} });
      await refused('bank event without its fields', () => topic(missingFields));
      await refused('the same message again', () => topic(missingFields));
      await refused('bank event that is a string', () => topic(bankMessage('nope')));
      await refused('bank refund of 0', () => topic(bankMessage(bankEvent('pix.refunded', { amount: 0 }))));
      await refused('gateway_c garbage postback', () =>
        topic(notification({ source: 'gateway_c', company_id: hooks.merchant.companyId, postback: 'garbage' })),
      );
      const negativeRefund =
        'postback_id=po_neg&event=transaction_status_changed&id=987654&current_status=refunded&refund[id]=rf_1&refund[amount]=-500';
      await refused('gateway_c refund of -500', () =>
        topic(notification({ source: 'gateway_c', company_id: hooks.merchant.companyId, postback: negativeRefund })),
      );
      await accepted('a bank event of an unknown type', () =>
        topic(bankMessage({ id: `b-${randomUUID()}`, type: 'statement.ready', data: {} })),
      );
    });
  });
}
