import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getBoletoInfo, isValidBoleto, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { hasError, parsePix } from 'pix-utils';
import { parsePixBrCode } from '../../src/brazil/pix.ts';
import { GatewayRequestError } from '../../src/gateways/errors.ts';
import { GatewayAClient, verifyWebhook, webhookCompanyId } from '../../src/gateways/gateway-a/index.ts';
import { GatewayUnavailableError, type CardCharge } from '../../src/gateways/port.ts';
import {
  BASIC_CREDENTIALS,
  BUYER,
  CARDS,
  COMPANY_ID,
  dateInDays,
  idempotencyKey,
  KEYS,
  metadata,
  postJson,
  sandboxAction,
  startHarness,
  type Harness,
  type ReceivedWebhook,
} from './support.ts';

describe('gateway_a client against its sandbox', { timeout: 60_000 }, () => {
  let harness: Harness;
  const client = new GatewayAClient();
  const account = () => harness.account('gateway_a');

  before(async () => {
    harness = await startHarness();
  });
  after(() => harness.close());

  async function tokenize(number: string, card: Record<string, unknown> = {}) {
    return postJson(`${harness.sandboxes.baseUrlFor('gateway_a')}/tokens?appId=${KEYS.gateway_a.publicKey}`, {
      type: 'card',
      card: { number, holder_name: 'MARIA DA SILVA', exp_month: 12, exp_year: 2030, cvv: '123', ...card },
    });
  }

  async function cardCharge(number: string, overrides: Partial<CardCharge> = {}): Promise<CardCharge> {
    const token = await tokenize(number);
    assert.equal(token.status, 200);
    return {
      amountCents: 10_000,
      installments: 1,
      cardToken: token.body.id,
      saveForLater: false,
      buyer: BUYER,
      description: 'Curso',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
      ...overrides,
    };
  }

  const webhookFor = (type: string, chargeId: string) => (webhook: ReceivedWebhook) => {
    const body = JSON.parse(webhook.rawBody);
    return body.type === type && body.data.id === chargeId;
  };

  test('an approved card is paid, announced by charge.paid with Basic credentials, and its saved card charges again', async () => {
    const outcome = await client.chargeCard(
      account(),
      await cardCharge(CARDS.approved, { saveForLater: true, installments: 3 }),
    );
    assert.equal(outcome.status, 'paid');
    assert.match(outcome.gatewayId!, /^ch_/);
    assert.ok(outcome.status === 'paid' && outcome.savedMethod);
    assert.match(outcome.savedMethod.reference, /^card_/);
    assert.deepEqual(
      { ...outcome.savedMethod, reference: 'x' },
      { reference: 'x', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 },
    );

    const webhook = await harness.receiver.next(webhookFor('charge.paid', outcome.gatewayId!));
    assert.equal(webhook.path, '/hooks/gateway_a');
    assert.equal(verifyWebhook(webhook.headers, webhook.rawBody, BASIC_CREDENTIALS), true);
    assert.equal(verifyWebhook(webhook.headers, webhook.rawBody, { ...BASIC_CREDENTIALS, password: 'wrong' }), false);
    assert.equal(verifyWebhook(webhook.headers, webhook.rawBody, { ...BASIC_CREDENTIALS, username: 'other' }), false);
    const body = JSON.parse(webhook.rawBody);
    assert.equal(webhookCompanyId(body), COMPANY_ID);
    assert.equal(body.data.metadata.company_id, String(COMPANY_ID));
    const event = client.parseWebhook(body);
    assert.equal(event.eventId, body.id);
    // The event carries the whole charge, with the card saved with it.
    assert.deepEqual(event.actions, [
      {
        kind: 'payment_paid',
        gatewayId: outcome.gatewayId,
        paidAt: new Date(body.data.paid_at),
        amountCents: 10_000,
        savedMethod: outcome.savedMethod,
      },
    ]);
    // So do the lookups: by the charge's id, and by our reference.
    assert.deepEqual(await client.fetchCharge(account(), outcome.gatewayId!), {
      gatewayId: outcome.gatewayId,
      status: 'paid',
      savedMethod: outcome.savedMethod,
    });
    const reference = { paymentUid: body.data.metadata.payment_uid, idempotencyKey: 'unused' };
    assert.deepEqual(await client.findCharge(account(), reference), {
      gatewayId: outcome.gatewayId,
      status: 'paid',
      savedMethod: outcome.savedMethod,
    });

    const order = await harness.receiver.next((hook) => JSON.parse(hook.rawBody).type === 'order.paid');
    assert.equal(client.parseWebhook(JSON.parse(order.rawBody)).actions[0]!.kind, 'ignored');

    const again = await client.chargeSavedMethod(account(), {
      amountCents: 4_990,
      installments: 1,
      methodReference: outcome.savedMethod.reference,
      buyer: BUYER,
      description: 'Upsell',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    assert.equal(again.status, 'paid');
    assert.notEqual(again.gatewayId, outcome.gatewayId);
    assert.equal(await client.fetchStatus(account(), again.gatewayId!), 'paid');
    // A card not asked to be saved is none: a charge of a saved card, or a charge without save_card.
    assert.deepEqual(await client.fetchCharge(account(), again.gatewayId!), {
      gatewayId: again.gatewayId,
      status: 'paid',
    });
    const unsaved = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    assert.deepEqual(await client.fetchCharge(account(), unsaved.gatewayId!), {
      gatewayId: unsaved.gatewayId,
      status: 'paid',
    });
  });

  test('a declined card is declined with the charge id, and charge.payment_failed maps to payment_failed', async () => {
    const outcome = await client.chargeCard(account(), await cardCharge(CARDS.declined));
    assert.equal(outcome.status, 'declined');
    assert.ok(outcome.status === 'declined');
    assert.equal(outcome.code, 'declined');
    assert.match(outcome.gatewayId!, /^ch_/);
    assert.equal(await client.fetchStatus(account(), outcome.gatewayId!), 'failed');
    const webhook = await harness.receiver.next(webhookFor('charge.payment_failed', outcome.gatewayId!));
    assert.deepEqual(client.parseWebhook(JSON.parse(webhook.rawBody)).actions, [
      { kind: 'payment_failed', gatewayId: outcome.gatewayId, reason: outcome.message },
    ]);
  });

  test('insufficient funds is its own decline code', async () => {
    const outcome = await client.chargeCard(account(), await cardCharge(CARDS.insufficientFunds));
    assert.ok(outcome.status === 'declined');
    assert.equal(outcome.code, 'insufficient_funds');
  });

  test('the gateway-error card is GatewayUnavailableError(error)', async () => {
    const charge = await cardCharge(CARDS.gatewayError);
    await assert.rejects(
      client.chargeCard(account(), charge),
      (error) => error instanceof GatewayUnavailableError && error.kind === 'error' && error.gateway === 'gateway_a',
    );
  });

  test('the timeout card is GatewayUnavailableError(timeout) once the client timeout passes', async () => {
    const charge = await cardCharge(CARDS.gatewayTimeout);
    const started = Date.now();
    await assert.rejects(
      new GatewayAClient({ timeoutMs: 300 }).chargeCard(account(), charge),
      (error) => error instanceof GatewayUnavailableError && error.kind === 'timeout',
    );
    assert.ok(Date.now() - started < 5_000);
  });

  test('a pix is a dynamic BR Code others can read; confirming it delivers charge.paid', async () => {
    const expiresAt = new Date(Date.now() + 30 * 60_000);
    const pix = await client.createPix(account(), {
      amountCents: 4_990,
      expiresAt,
      buyer: BUYER,
      description: 'E-book',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    assert.match(pix.gatewayId, /^ch_/);
    assert.ok(Math.abs(pix.expiresAt.getTime() - expiresAt.getTime()) < 2_000);
    const parsed = parsePix(pix.brCode);
    assert.ok(!hasError(parsed) && parsed.type === 'DYNAMIC');
    assert.match(parsed.url, /^127\.0\.0\.1\/gateway_a\/qr\/[0-9a-f]{32}$/);
    assert.equal(isValidPixPayload(pix.brCode), true);
    assert.equal(parsePixBrCode(pix.brCode).amountCents, undefined, 'the location, not the code, states the amount');
    assert.equal(await client.fetchStatus(account(), pix.gatewayId), 'waiting_payment');

    const location = await fetch(`${harness.sandboxes.url}/${parsed.url.split('/').slice(1).join('/')}`).then(
      (response) => response.json(),
    );
    assert.equal(location.status, 'ATIVA');
    assert.equal(location.valor.original, '49.90');

    const confirmed = await sandboxAction(harness, 'gateway_a', pix.gatewayId, 'confirm');
    assert.equal(confirmed.status, 200);
    assert.equal(confirmed.body.webhook.delivery, 'pending');
    const webhook = await harness.receiver.next(webhookFor('charge.paid', pix.gatewayId));
    assert.equal(verifyWebhook(webhook.headers, webhook.rawBody, BASIC_CREDENTIALS), true);
    const [action] = client.parseWebhook(JSON.parse(webhook.rawBody)).actions;
    assert.equal(action?.kind, 'payment_paid');
    assert.ok(action?.kind === 'payment_paid' && action.gatewayId === pix.gatewayId && action.amountCents === 4_990);
    assert.equal(await client.fetchStatus(account(), pix.gatewayId), 'paid');
    assert.equal((await sandboxAction(harness, 'gateway_a', pix.gatewayId, 'confirm')).status, 409);
  });

  test('a boleto is a valid Banco do Brasil slip; letting it expire maps to payment_expired', async () => {
    const dueDate = dateInDays(3);
    const boleto = await client.createBoleto(account(), {
      amountCents: 29_700,
      dueDate,
      buyer: BUYER,
      description: 'Curso',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    assert.equal(boleto.dueDate, dueDate);
    assert.match(boleto.barcode, /^0019\d{40}$/);
    assert.equal(boleto.beneficiaryCode, '3064-3 / 00012345-5', 'the agency and account the slip prints');
    assert.equal(isValidBoleto(boleto.digitableLine), true);
    const info = getBoletoInfo(boleto.digitableLine);
    assert.equal(info?.bankCode, '001');
    assert.equal(info?.amount, 29_700);
    assert.equal(await client.fetchStatus(account(), boleto.gatewayId), 'waiting_payment');

    assert.equal((await sandboxAction(harness, 'gateway_a', boleto.gatewayId, 'expire')).status, 200);
    const webhook = await harness.receiver.next(webhookFor('charge.payment_failed', boleto.gatewayId));
    assert.deepEqual(client.parseWebhook(JSON.parse(webhook.rawBody)).actions, [
      { kind: 'payment_expired', gatewayId: boleto.gatewayId },
    ]);
    assert.equal(await client.fetchStatus(account(), boleto.gatewayId), 'cancelled');
  });

  test('partial then full refunds: statuses, refund ids, charge.refunded events; refunding more is refused', async () => {
    const paid = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    const first = await client.refund(account(), paid.gatewayId!, 2_500, idempotencyKey());
    assert.match(first.refundId, /^re_/);
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'partially_refunded');
    const firstHook = await harness.receiver.next(webhookFor('charge.refunded', paid.gatewayId!));
    assert.deepEqual(client.parseWebhook(JSON.parse(firstHook.rawBody)).actions, [
      { kind: 'payment_refunded', gatewayId: paid.gatewayId, amountCents: 2_500, refundId: first.refundId },
    ]);

    const repeatKey = idempotencyKey();
    const second = await client.refund(account(), paid.gatewayId!, 7_500, repeatKey);
    assert.deepEqual(await client.refund(account(), paid.gatewayId!, 7_500, repeatKey), second);
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'refunded');
    const secondHook = await harness.receiver.next(webhookFor('charge.refunded', paid.gatewayId!));
    assert.deepEqual(client.parseWebhook(JSON.parse(secondHook.rawBody)).actions, [
      { kind: 'payment_refunded', gatewayId: paid.gatewayId, amountCents: 7_500, refundId: second.refundId },
    ]);

    await assert.rejects(
      client.refund(account(), paid.gatewayId!, 1, idempotencyKey()),
      (error) => error instanceof GatewayRequestError && error.code === 'invalid_state',
    );
  });

  test('void cancels a waiting pix (charge.canceled) and refunds a paid card in full', async () => {
    const pix = await client.createPix(account(), {
      amountCents: 1_000,
      expiresAt: new Date(Date.now() + 600_000),
      buyer: BUYER,
      description: 'x',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    await client.voidCharge(account(), pix.gatewayId, idempotencyKey());
    assert.equal(await client.fetchStatus(account(), pix.gatewayId), 'cancelled');
    const cancelled = await harness.receiver.next(webhookFor('charge.canceled', pix.gatewayId));
    assert.deepEqual(client.parseWebhook(JSON.parse(cancelled.rawBody)).actions, [
      { kind: 'payment_cancelled', gatewayId: pix.gatewayId },
    ]);

    const paid = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    await client.voidCharge(account(), paid.gatewayId!, idempotencyKey());
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'refunded');
    const refunded = await harness.receiver.next(webhookFor('charge.refunded', paid.gatewayId!));
    const [action] = client.parseWebhook(JSON.parse(refunded.rawBody)).actions;
    assert.ok(action?.kind === 'payment_refunded' && action.amountCents === 10_000);
  });

  test('a chargeback maps to payment_disputed and charged_back', async () => {
    const paid = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    assert.equal((await sandboxAction(harness, 'gateway_a', paid.gatewayId!, 'dispute')).status, 200);
    const webhook = await harness.receiver.next(webhookFor('charge.chargedback', paid.gatewayId!));
    const [action] = client.parseWebhook(JSON.parse(webhook.rawBody)).actions;
    assert.ok(
      action?.kind === 'payment_disputed' && action.amountCents === 10_000 && action.disputeId.startsWith('dp_'),
    );
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'charged_back');
  });

  test('a repeated idempotency key returns the first charge instead of charging again', async () => {
    const charge = await cardCharge(CARDS.approved);
    const first = await client.chargeCard(account(), charge);
    const second = await client.chargeCard(account(), charge);
    assert.deepEqual(second, first);
  });

  test('tokens are single-use and unknown saved cards are refused: invalid_token without a charge', async () => {
    const charge = await cardCharge(CARDS.approved);
    assert.equal((await client.chargeCard(account(), charge)).status, 'paid');
    const reused = await client.chargeCard(account(), { ...charge, idempotencyKey: idempotencyKey() });
    assert.deepEqual(
      { ...reused, message: '' },
      { status: 'declined', gatewayId: null, code: 'invalid_token', message: '' },
    );
    const unknown = await client.chargeSavedMethod(account(), {
      amountCents: 100,
      installments: 1,
      methodReference: 'card_unknown',
      buyer: BUYER,
      description: 'x',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    assert.ok(unknown.status === 'declined' && unknown.code === 'invalid_token');
    await assert.rejects(client.chargeCard(account(), { ...charge, cardToken: undefined }), GatewayRequestError);
  });

  test('the tokenizer answers browsers (CORS), takes only the publishable key and test cards, and never echoes the number', async () => {
    const base = harness.sandboxes.baseUrlFor('gateway_a');
    const preflight = await fetch(`${base}/tokens?appId=${KEYS.gateway_a.publicKey}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    const token = await tokenize(CARDS.approved);
    assert.equal(token.headers.get('access-control-allow-origin'), '*');
    assert.match(token.body.id, /^tok_/);
    assert.equal(token.body.card.last_four_digits, '1111');
    assert.ok(!JSON.stringify(token.body).includes(CARDS.approved));

    const withSecret = await postJson(`${base}/tokens?appId=${KEYS.gateway_a.secretKey}`, { card: {} });
    assert.equal(withSecret.status, 401);
    const notTest = await tokenize('5555555555554444');
    assert.equal(notTest.status, 422);
    assert.deepEqual(Object.keys(notTest.body.errors), ['card.number']);
    const expired = await tokenize(CARDS.approved, { exp_month: 1, exp_year: 2020 });
    assert.equal(expired.status, 422);
    assert.deepEqual(Object.keys(expired.body.errors), ['card.exp_year']);
    assert.equal((await tokenize(CARDS.approved, { cvv: '12' })).status, 422);
    const orders = await fetch(`${base}/orders`, { method: 'OPTIONS' });
    assert.equal(orders.status, 404);
  });

  test('a wrong secret key is refused, and one account cannot read another account’s charge', async () => {
    const paid = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    await assert.rejects(
      client.fetchStatus({ ...account(), secretKey: 'not-a-key' }, paid.gatewayId!),
      (error) => error instanceof GatewayRequestError && error.code === 'authentication_failed' && error.status === 401,
    );
    await assert.rejects(
      client.fetchStatus({ ...account(), secretKey: 'sk_test_another_account_key' }, paid.gatewayId!),
      (error) => error instanceof GatewayRequestError && error.code === 'not_found',
    );
  });
});
