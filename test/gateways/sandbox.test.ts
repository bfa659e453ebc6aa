import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GatewayAClient } from '../../src/gateways/gateway-a/client.ts';
import { GatewayBClient } from '../../src/gateways/gateway-b/client.ts';
import { GatewayCClient } from '../../src/gateways/gateway-c/client.ts';
import { GatewayUnavailableError } from '../../src/gateways/port.ts';
import { createGateway, gatewayFor, isGatewayName } from '../../src/gateways/registry.ts';
import { startSandboxes } from '../../src/gateways/sandbox/server.ts';
import {
  BUYER,
  CARDS,
  COMPANY_ID,
  idempotencyKey,
  KEYS,
  metadata,
  OTHER_COMPANY_ID,
  postJson,
  sandboxAction,
  startHarness,
  type Harness,
} from './support.ts';

describe('the sandbox server', { timeout: 30_000 }, () => {
  let harness: Harness;
  const client = new GatewayAClient();

  before(async () => {
    harness = await startHarness();
  });
  after(() => harness.close());

  const pix = (companyId = COMPANY_ID) =>
    client.createPix(harness.account('gateway_a'), {
      amountCents: 500,
      expiresAt: new Date(Date.now() + 600_000),
      buyer: BUYER,
      description: 'x',
      metadata: metadata(companyId),
      idempotencyKey: idempotencyKey(),
    });

  test('serves the three gateways under their prefixes on one port', () => {
    assert.match(harness.sandboxes.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    for (const name of ['gateway_a', 'gateway_b', 'gateway_c'] as const)
      assert.equal(harness.sandboxes.baseUrlFor(name), `${harness.sandboxes.url}/${name}`);
  });

  test('unknown prefixes and paths are 404 in each gateway’s own error shape', async () => {
    const root = await fetch(`${harness.sandboxes.url}/nope`);
    assert.equal(root.status, 404);
    assert.deepEqual(Object.keys(await root.json()), ['error']);
    assert.deepEqual(await fetch(`${harness.sandboxes.baseUrlFor('gateway_a')}/nope`).then((r) => r.json()), {
      message: 'Unknown endpoint',
    });
    assert.equal(
      (await fetch(`${harness.sandboxes.baseUrlFor('gateway_b')}/v1/nope`).then((r) => r.json())).error.type,
      'invalid_request_error',
    );
    assert.equal(
      (await fetch(`${harness.sandboxes.baseUrlFor('gateway_c')}/nope`).then((r) => r.json())).errors[0].type,
      'not_found',
    );
  });

  test('a malformed JSON body is a 400 in the gateway’s shape', async () => {
    const response = await fetch(`${harness.sandboxes.baseUrlFor('gateway_c')}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    assert.equal(response.status, 400);
    assert.equal((await response.json()).errors[0].message, 'The body is not valid JSON');
  });

  test('a webhook answered 500 is retried with the same event until it is accepted', async () => {
    harness.receiver.failNext(2);
    const issued = await new GatewayBClient().createPix(harness.account('gateway_b'), {
      amountCents: 500,
      expiresAt: new Date(Date.now() + 600_000),
      buyer: BUYER,
      description: 'x',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    await sandboxAction(harness, 'gateway_b', issued.gatewayId, 'confirm');
    const isOurs = (hook: { rawBody: string }) => JSON.parse(hook.rawBody).data.object.id === issued.gatewayId;
    const delivered = await harness.receiver.next(isOurs);
    const attempts = harness.receiver.received.filter(isOurs);
    assert.deepEqual(
      attempts.map((attempt) => attempt.answeredStatus),
      [500, 500, 200],
    );
    assert.ok(attempts.every((attempt) => JSON.parse(attempt.rawBody).id === JSON.parse(delivered.rawBody).id));
    await harness.sandboxes.webhooksIdle();
    const record = harness.sandboxes
      .deliveries()
      .find((delivery) => delivery.eventId === JSON.parse(delivered.rawBody).id);
    assert.deepEqual(
      { status: record?.status, attempts: record?.attempts, last: record?.lastResponseStatus },
      { status: 'delivered', attempts: 3, last: 200 },
    );
  });

  test('a receiver that keeps failing is given up after the last retry', async () => {
    harness.receiver.failNext(10);
    const issued = await pix();
    const confirmed = await sandboxAction(harness, 'gateway_a', issued.gatewayId, 'confirm');
    await harness.sandboxes.webhooksIdle();
    const record = harness.sandboxes
      .deliveries()
      .find((delivery) => delivery.eventId === confirmed.body.webhook.event_id);
    assert.deepEqual({ status: record?.status, attempts: record?.attempts }, { status: 'failed', attempts: 4 });
    harness.receiver.failNext(0);
  });

  test('a company without a webhook target gets no delivery; the action says so', async () => {
    const issued = await pix(OTHER_COMPANY_ID);
    const confirmed = await sandboxAction(harness, 'gateway_a', issued.gatewayId, 'confirm');
    assert.equal(confirmed.body.webhook.delivery, 'no_target');
    assert.equal(confirmed.body.charge.status, 'paid');
    const listed = await fetch(`${harness.sandboxes.baseUrlFor('gateway_a')}/sandbox/webhooks`).then((r) => r.json());
    assert.ok(
      listed.data.some(
        (delivery: { eventId: string; status: string }) =>
          delivery.eventId === confirmed.body.webhook.event_id && delivery.status === 'no_target',
      ),
    );
  });

  test('the ledger lists each charge once with its refunds, without the secret key that owns it', async () => {
    const meta = metadata();
    const issued = await client.createPix(harness.account('gateway_a'), {
      amountCents: 700,
      expiresAt: new Date(Date.now() + 600_000),
      buyer: BUYER,
      description: 'x',
      metadata: meta,
      idempotencyKey: idempotencyKey(),
    });
    await sandboxAction(harness, 'gateway_a', issued.gatewayId, 'confirm');
    await client.refund(harness.account('gateway_a'), issued.gatewayId, 300, idempotencyKey());
    const ledger = await fetch(`${harness.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges`).then((r) => r.json());
    const entries = ledger.data.filter((entry: { id: string }) => entry.id === issued.gatewayId);
    assert.equal(entries.length, 1);
    assert.deepEqual(
      { ...entries[0], refunds: entries[0].refunds.map((refund: { amount_cents: number }) => refund.amount_cents) },
      {
        id: issued.gatewayId,
        method: 'pix',
        state: 'paid',
        amount_cents: 700,
        installments: 1,
        refunded_cents: 300,
        refunds: [300],
        metadata: { company_id: String(meta.companyId), order_uid: meta.orderUid, payment_uid: meta.paymentUid },
      },
    );
    assert.doesNotMatch(JSON.stringify(ledger), new RegExp(KEYS.gateway_a.secretKey));
  });

  test('sandbox actions refuse unknown charges and wrong states', async () => {
    assert.equal((await sandboxAction(harness, 'gateway_b', 'pi_unknown', 'confirm')).status, 404);
    const issued = await pix();
    assert.equal((await sandboxAction(harness, 'gateway_a', issued.gatewayId, 'dispute')).status, 409);
    assert.equal((await sandboxAction(harness, 'gateway_a', issued.gatewayId, 'expire')).status, 200);
    assert.equal((await sandboxAction(harness, 'gateway_a', issued.gatewayId, 'confirm')).status, 409);
    const location = await fetch(`${harness.sandboxes.baseUrlFor('gateway_a')}/qr/nope`);
    assert.equal(location.status, 404);
  });

  test('the boleto voucher is served by the sandbox', async () => {
    const boleto = await new GatewayCClient().createBoleto(harness.account('gateway_c'), {
      amountCents: 1_234,
      dueDate: '2030-01-15',
      buyer: BUYER,
      description: 'x',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    const transaction = await fetch(
      `${harness.sandboxes.baseUrlFor('gateway_c')}/transactions/${boleto.gatewayId}?api_key=${KEYS.gateway_c.secretKey}`,
    ).then((r) => r.json());
    const voucher = await fetch(transaction.boleto_url).then((r) => r.json());
    assert.deepEqual(
      { ...voucher },
      {
        bank: '001',
        barcode: boleto.barcode,
        digitable_line: boleto.digitableLine,
        due_date: '2030-01-15',
        amount: 1_234,
        status: 'waiting_payment',
        payer: { name: BUYER.name, document: BUYER.document },
        beneficiary_code: boleto.beneficiaryCode,
      },
    );
    assert.match(boleto.beneficiaryCode ?? '', /^\d{4}-\d \/ \d{8}-[\dX]$/);
    const badDate = await postJson(`${harness.sandboxes.baseUrlFor('gateway_c')}/transactions`, {
      api_key: KEYS.gateway_c.secretKey,
      amount: 100,
      payment_method: 'boleto',
      boleto_expiration_date: '2030-02-30',
    });
    assert.equal(badDate.status, 400);
    assert.equal(badDate.body.errors[0].parameter_name, 'due_date');
  });

  test('a connection refused is GatewayUnavailableError(timeout): the caller cannot know it was not charged', async () => {
    await assert.rejects(
      client.fetchStatus(
        { baseUrl: 'http://127.0.0.1:9', publicKey: null, secretKey: KEYS.gateway_a.secretKey },
        'ch_1',
      ),
      (error) => error instanceof GatewayUnavailableError && error.kind === 'timeout',
    );
  });

  test('the 500 of the gateway-error card is not kept: a retry with the same key runs again', async () => {
    const token = await postJson(
      `${harness.sandboxes.baseUrlFor('gateway_a')}/tokens?appId=${KEYS.gateway_a.publicKey}`,
      { card: { number: CARDS.gatewayError, holder_name: 'A', exp_month: 1, exp_year: 2031, cvv: '123' } },
    );
    const charge = {
      amountCents: 100,
      installments: 1,
      cardToken: token.body.id,
      saveForLater: false,
      buyer: BUYER,
      description: 'x',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    };
    await assert.rejects(client.chargeCard(harness.account('gateway_a'), charge), GatewayUnavailableError);
    const retried = await client.chargeCard(harness.account('gateway_a'), charge);
    assert.ok(
      retried.status === 'declined' && retried.code === 'invalid_token',
      'the retry reached the sandbox and found the token spent',
    );
  });
});

describe('starting and closing', { timeout: 30_000 }, () => {
  test('close() returns promptly while the timeout card holds a request', async () => {
    const sandboxes = await startSandboxes({ webhookTargets: () => undefined });
    const account = { baseUrl: sandboxes.baseUrlFor('gateway_b'), ...KEYS.gateway_b };
    const token = await fetch(`${account.baseUrl}/v1/confirmation_tokens`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEYS.gateway_b.publicKey}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        'payment_method_data[type]': 'card',
        'payment_method_data[card][number]': CARDS.gatewayTimeout,
        'payment_method_data[card][exp_month]': '1',
        'payment_method_data[card][exp_year]': '2031',
        'payment_method_data[card][cvc]': '123',
        'payment_method_data[billing_details][name]': 'A',
      }),
    }).then((r) => r.json());
    const pending = new GatewayBClient({ timeoutMs: 20_000 }).chargeCard(account, {
      amountCents: 100,
      installments: 1,
      confirmationTokenId: token.id,
      saveForLater: false,
      buyer: BUYER,
      description: 'x',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await sandboxes.close();
    await assert.rejects(pending, GatewayUnavailableError);
    assert.ok(Date.now() - started < 2_000);
  });

  test('the timeout card answers 504 once its hold ends', async () => {
    const sandboxes = await startSandboxes({ webhookTargets: () => undefined, holdMs: 100 });
    try {
      const account = { baseUrl: sandboxes.baseUrlFor('gateway_c'), ...KEYS.gateway_c };
      const c = new GatewayCClient();
      const { publicEncrypt, constants } = await import('node:crypto');
      const key = await c.createCardHashKey(account);
      const hash = `${key.id}_${publicEncrypt({ key: key.publicKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(`card_number=${CARDS.gatewayTimeout}&card_holder_name=A&card_expiration_date=0131&card_cvv=123`)).toString('base64')}`;
      await assert.rejects(
        c.chargeCard(account, {
          amountCents: 100,
          installments: 1,
          cardToken: hash,
          saveForLater: false,
          buyer: BUYER,
          description: 'x',
          metadata: metadata(),
          idempotencyKey: idempotencyKey(),
        }),
        (error) => error instanceof GatewayUnavailableError && error.kind === 'error',
      );
    } finally {
      await sandboxes.close();
    }
  });

  test('a BR Code carries the configured Pix location host', async () => {
    const sandboxes = await startSandboxes({ webhookTargets: () => undefined, pixLocationHost: 'pix.sandbox.example' });
    try {
      const issued = await new GatewayAClient().createPix(
        { baseUrl: sandboxes.baseUrlFor('gateway_a'), ...KEYS.gateway_a },
        {
          amountCents: 100,
          expiresAt: new Date(Date.now() + 60_000),
          buyer: BUYER,
          description: 'x',
          metadata: metadata(),
          idempotencyKey: idempotencyKey(),
        },
      );
      assert.match(issued.brCode, /pix\.sandbox\.example\/gateway_a\/qr\/[0-9a-f]{32}/);
    } finally {
      await sandboxes.close();
    }
  });
});

describe('the registry', () => {
  test('gatewayFor gives one shared client per gateway, with its name', () => {
    assert.ok(gatewayFor('gateway_a') instanceof GatewayAClient);
    assert.ok(gatewayFor('gateway_b') instanceof GatewayBClient);
    assert.ok(gatewayFor('gateway_c') instanceof GatewayCClient);
    assert.equal(gatewayFor('gateway_b'), gatewayFor('gateway_b'));
    assert.deepEqual(
      ['gateway_a', 'gateway_b', 'gateway_c'].map((name) => gatewayFor(name as 'gateway_a').name),
      ['gateway_a', 'gateway_b', 'gateway_c'],
    );
    assert.notEqual(createGateway('gateway_a', { timeoutMs: 1 }), gatewayFor('gateway_a'));
    assert.equal(isGatewayName('gateway_c'), true);
    assert.equal(isGatewayName('bank'), false);
  });
});
