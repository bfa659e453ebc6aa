import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getBoletoInfo, getPixPayloadInfo, isValidBoleto, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { hasError, parsePix } from 'pix-utils';
import Stripe from 'stripe';
import { GatewayRequestError } from '../../src/gateways/errors.ts';
import { GatewayBClient, verifyWebhook } from '../../src/gateways/gateway-b/index.ts';
import { GatewayUnavailableError, type CardCharge } from '../../src/gateways/port.ts';
import {
  BUYER,
  CARDS,
  dateInDays,
  idempotencyKey,
  KEYS,
  metadata,
  sandboxAction,
  SIGNING_SECRET,
  startHarness,
  type Harness,
  type ReceivedWebhook,
} from './support.ts';

const stripe = new Stripe('sk_test_only_used_for_its_webhook_helpers');

describe('gateway_b client against its sandbox', { timeout: 60_000 }, () => {
  let harness: Harness;
  const client = new GatewayBClient();
  const account = () => harness.account('gateway_b');

  before(async () => {
    harness = await startHarness();
  });
  after(() => harness.close());

  async function confirmationToken(
    number: string,
    overrides: Record<string, string> = {},
    key = KEYS.gateway_b.publicKey,
  ) {
    const form = new URLSearchParams({
      'payment_method_data[type]': 'card',
      'payment_method_data[card][number]': number,
      'payment_method_data[card][exp_month]': '12',
      'payment_method_data[card][exp_year]': '2030',
      'payment_method_data[card][cvc]': '123',
      'payment_method_data[billing_details][name]': 'Maria da Silva',
      ...overrides,
    });
    const response = await fetch(`${harness.sandboxes.baseUrlFor('gateway_b')}/v1/confirmation_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  }

  async function cardCharge(number: string): Promise<CardCharge> {
    const token = await confirmationToken(number);
    assert.equal(token.status, 200);
    return {
      amountCents: 10_000,
      installments: 1,
      confirmationTokenId: token.body.id,
      saveForLater: false,
      buyer: BUYER,
      description: 'Curso',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    };
  }

  const eventFor = (type: string, intentId: string) => (webhook: ReceivedWebhook) => {
    const body = JSON.parse(webhook.rawBody);
    const object = body.data.object;
    return body.type === type && (object.id === intentId || object.payment_intent === intentId);
  };

  /** The signature header verified by the stripe package and by ours; returns the parsed event. */
  function verified(webhook: ReceivedWebhook) {
    const header = webhook.headers['gateway-b-signature'];
    assert.equal(typeof header, 'string');
    const event = stripe.webhooks.constructEvent(webhook.rawBody, header as string, SIGNING_SECRET);
    assert.equal(verifyWebhook(webhook.headers, webhook.rawBody, { secrets: [SIGNING_SECRET] }), true);
    return client.parseWebhook(event);
  }

  test('an approved card succeeds, its signed event verifies with the stripe package, and the saved method charges again', async () => {
    const outcome = await client.chargeCard(account(), {
      ...(await cardCharge(CARDS.approved)),
      saveForLater: true,
      installments: 6,
    });
    assert.ok(outcome.status === 'paid' && outcome.savedMethod);
    assert.match(outcome.gatewayId, /^pi_/);
    assert.match(outcome.savedMethod.reference, /^pm_/);
    assert.deepEqual(
      { ...outcome.savedMethod, reference: 'x' },
      { reference: 'x', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 },
    );

    const webhook = await harness.receiver.next(eventFor('payment_intent.succeeded', outcome.gatewayId));
    assert.equal(webhook.path, '/hooks/gateway_b');
    const event = verified(webhook);
    assert.equal(event.type, 'payment_intent.succeeded');
    const [action] = event.actions;
    assert.ok(
      action?.kind === 'payment_paid' && action.gatewayId === outcome.gatewayId && action.amountCents === 10_000,
    );
    // An event never expands the intent's payment method: the saved card comes by its reference alone.
    assert.deepEqual(action.savedMethod, {
      reference: outcome.savedMethod.reference,
      brand: null,
      last4: null,
      expMonth: null,
      expYear: null,
    });
    // The lookups expand it: the saved card with its details, by the intent's id and by the search over our reference.
    assert.deepEqual(await client.fetchCharge(account(), outcome.gatewayId), {
      gatewayId: outcome.gatewayId,
      status: 'paid',
      savedMethod: outcome.savedMethod,
    });
    const paymentUid = (JSON.parse(webhook.rawBody) as { data: { object: { metadata: { payment_uid: string } } } }).data
      .object.metadata.payment_uid;
    assert.deepEqual(await client.findCharge(account(), { paymentUid, idempotencyKey: 'unused' }), {
      gatewayId: outcome.gatewayId,
      status: 'paid',
      savedMethod: outcome.savedMethod,
    });

    const tampered = webhook.rawBody.replace('"amount": 10000', '"amount": 1');
    assert.notEqual(tampered, webhook.rawBody);
    assert.equal(verifyWebhook(webhook.headers, tampered, { secrets: [SIGNING_SECRET] }), false);
    assert.throws(() =>
      stripe.webhooks.constructEvent(tampered, webhook.headers['gateway-b-signature'] as string, SIGNING_SECRET),
    );

    const again = await client.chargeSavedMethod(account(), {
      amountCents: 1_990,
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
    // An intent that did not ask to save its card (`setup_future_usage`) names none.
    assert.deepEqual(await client.fetchCharge(account(), again.gatewayId!), {
      gatewayId: again.gatewayId,
      status: 'paid',
    });
  });

  test('a declined card is declined with the intent id, and payment_intent.payment_failed maps to payment_failed', async () => {
    const outcome = await client.chargeCard(account(), await cardCharge(CARDS.declined));
    assert.ok(outcome.status === 'declined');
    assert.equal(outcome.code, 'declined');
    assert.match(outcome.gatewayId!, /^pi_/);
    assert.equal(await client.fetchStatus(account(), outcome.gatewayId!), 'failed');
    const event = verified(await harness.receiver.next(eventFor('payment_intent.payment_failed', outcome.gatewayId!)));
    assert.deepEqual(event.actions, [
      { kind: 'payment_failed', gatewayId: outcome.gatewayId, reason: 'Your card was declined.' },
    ]);
  });

  test('insufficient funds is its own decline code', async () => {
    const outcome = await client.chargeCard(account(), await cardCharge(CARDS.insufficientFunds));
    assert.ok(outcome.status === 'declined' && outcome.code === 'insufficient_funds');
  });

  test('the gateway-error card is GatewayUnavailableError(error); the timeout card is GatewayUnavailableError(timeout)', async () => {
    await assert.rejects(
      client.chargeCard(account(), await cardCharge(CARDS.gatewayError)),
      (error) => error instanceof GatewayUnavailableError && error.kind === 'error' && error.gateway === 'gateway_b',
    );
    const started = Date.now();
    await assert.rejects(
      new GatewayBClient({ timeoutMs: 300 }).chargeCard(account(), await cardCharge(CARDS.gatewayTimeout)),
      (error) => error instanceof GatewayUnavailableError && error.kind === 'timeout',
    );
    assert.ok(Date.now() - started < 5_000);
  });

  test('a card charge without a confirmation token is a clear GatewayRequestError', async () => {
    const charge = await cardCharge(CARDS.approved);
    await assert.rejects(client.chargeCard(account(), { ...charge, confirmationTokenId: undefined }), (error) => {
      assert.ok(error instanceof GatewayRequestError);
      assert.equal(error.code, 'confirmation_token_required');
      assert.equal(error.status, 400);
      assert.match(error.message, /confirmation_token_id/);
      return true;
    });
  });

  test('confirmation tokens are single-use; an unknown saved method is refused too', async () => {
    const charge = await cardCharge(CARDS.approved);
    assert.equal((await client.chargeCard(account(), charge)).status, 'paid');
    assert.deepEqual(
      await client.chargeCard(account(), charge),
      await client.chargeCard(account(), charge),
      'same idempotency key, same answer',
    );
    const reused = await client.chargeCard(account(), { ...charge, idempotencyKey: idempotencyKey() });
    assert.ok(reused.status === 'declined' && reused.code === 'invalid_token' && reused.gatewayId === null);
    const unknown = await client.chargeSavedMethod(account(), {
      amountCents: 100,
      installments: 1,
      methodReference: 'pm_unknown',
      buyer: BUYER,
      description: 'x',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    assert.ok(unknown.status === 'declined' && unknown.code === 'invalid_token');
  });

  test('a pix is a dynamic BR Code; confirming it delivers a signed payment_intent.succeeded', async () => {
    const pix = await client.createPix(account(), {
      amountCents: 4_990,
      expiresAt: new Date(Date.now() + 3_600_000),
      buyer: BUYER,
      description: 'E-book',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    assert.match(pix.gatewayId, /^pi_/);
    const parsed = parsePix(pix.brCode);
    assert.ok(!hasError(parsed) && parsed.type === 'DYNAMIC' && parsed.url.includes('/gateway_b/qr/'));
    assert.equal(getPixPayloadInfo(pix.brCode)?.url, parsed.url);
    assert.equal(isValidPixPayload(pix.brCode), true);
    assert.equal(await client.fetchStatus(account(), pix.gatewayId), 'waiting_payment');
    await sandboxAction(harness, 'gateway_b', pix.gatewayId, 'confirm');
    const [action] = verified(await harness.receiver.next(eventFor('payment_intent.succeeded', pix.gatewayId))).actions;
    assert.ok(action?.kind === 'payment_paid' && action.amountCents === 4_990);
    assert.equal(await client.fetchStatus(account(), pix.gatewayId), 'paid');
  });

  test('a boleto is a valid slip with its due date; expiring it maps to payment_expired', async () => {
    const dueDate = dateInDays(5);
    const boleto = await client.createBoleto(account(), {
      amountCents: 12_345,
      dueDate,
      buyer: BUYER,
      description: 'Curso',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    assert.equal(boleto.dueDate, dueDate);
    assert.equal(isValidBoleto(boleto.digitableLine), true);
    assert.equal(getBoletoInfo(boleto.digitableLine)?.amount, 12_345);
    assert.equal(boleto.barcode.slice(0, 3), '001');
    assert.equal(boleto.beneficiaryCode, '1234-3 / 00067890-2', 'the agency and account the slip prints');
    await sandboxAction(harness, 'gateway_b', boleto.gatewayId, 'expire');
    const event = verified(await harness.receiver.next(eventFor('payment_intent.payment_failed', boleto.gatewayId)));
    assert.deepEqual(event.actions, [{ kind: 'payment_expired', gatewayId: boleto.gatewayId }]);
    assert.equal(await client.fetchStatus(account(), boleto.gatewayId), 'cancelled');
  });

  test('partial then full refunds emit charge.refunded with the newest refund first', async () => {
    const paid = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    const first = await client.refund(account(), paid.gatewayId!, 3_000, idempotencyKey());
    assert.match(first.refundId, /^re_/);
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'partially_refunded');
    assert.deepEqual(verified(await harness.receiver.next(eventFor('charge.refunded', paid.gatewayId!))).actions, [
      { kind: 'payment_refunded', gatewayId: paid.gatewayId, amountCents: 3_000, refundId: first.refundId },
    ]);
    const second = await client.refund(account(), paid.gatewayId!, 7_000, idempotencyKey());
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'refunded');
    assert.deepEqual(verified(await harness.receiver.next(eventFor('charge.refunded', paid.gatewayId!))).actions, [
      { kind: 'payment_refunded', gatewayId: paid.gatewayId, amountCents: 7_000, refundId: second.refundId },
    ]);
    await assert.rejects(
      client.refund(account(), paid.gatewayId!, 1, idempotencyKey()),
      (error) => error instanceof GatewayRequestError && error.code === 'invalid_state',
    );
  });

  test('void cancels a waiting pix and refunds a succeeded card in full', async () => {
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
    assert.deepEqual(
      verified(await harness.receiver.next(eventFor('payment_intent.canceled', pix.gatewayId))).actions,
      [{ kind: 'payment_cancelled', gatewayId: pix.gatewayId }],
    );

    const paid = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    await client.voidCharge(account(), paid.gatewayId!, idempotencyKey());
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'refunded');
    const [action] = verified(await harness.receiver.next(eventFor('charge.refunded', paid.gatewayId!))).actions;
    assert.ok(action?.kind === 'payment_refunded' && action.amountCents === 10_000);
  });

  test('a dispute maps to payment_disputed and charged_back', async () => {
    const paid = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    await sandboxAction(harness, 'gateway_b', paid.gatewayId!, 'dispute');
    const [action] = verified(await harness.receiver.next(eventFor('charge.dispute.created', paid.gatewayId!))).actions;
    assert.ok(
      action?.kind === 'payment_disputed' &&
        action.gatewayId === paid.gatewayId &&
        action.disputeId.startsWith('dp_') &&
        action.amountCents === 10_000,
    );
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'charged_back');
  });

  test('confirmation tokens answer browsers with the publishable key only; server calls refuse it', async () => {
    const token = await confirmationToken(CARDS.approved);
    assert.equal(token.headers.get('access-control-allow-origin'), '*');
    assert.match(token.body.id, /^ctoken_/);
    assert.equal(token.body.payment_method_preview.card.last4, '1111');
    assert.equal((await confirmationToken(CARDS.approved, {}, KEYS.gateway_b.secretKey)).status, 401);
    const expired = await confirmationToken(CARDS.approved, { 'payment_method_data[card][exp_year]': '2021' });
    assert.equal(expired.status, 402);
    assert.equal(expired.body.error.code, 'expired_card');
    await assert.rejects(
      client.fetchStatus({ ...account(), secretKey: KEYS.gateway_b.publicKey }, 'pi_x'),
      (error) => error instanceof GatewayRequestError && error.code === 'authentication_failed',
    );
    await assert.rejects(
      client.fetchStatus(
        { ...account(), secretKey: 'sk_test_someone_else_entirely' },
        (await client.chargeCard(account(), await cardCharge(CARDS.approved))).gatewayId!,
      ),
      (error) => error instanceof GatewayRequestError && error.code === 'not_found',
    );
  });
});

describe('gateway_b webhook signatures', () => {
  const payload = JSON.stringify({
    id: 'evt_1',
    object: 'event',
    type: 'payment_intent.succeeded',
    data: { object: { id: 'pi_1', amount_received: 100 } },
  });

  test('a header made by the stripe package verifies; a tampered body, a wrong secret or no header does not', () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: SIGNING_SECRET });
    assert.equal(verifyWebhook({ 'Gateway-B-Signature': header }, payload, { secrets: [SIGNING_SECRET] }), true);
    assert.equal(
      verifyWebhook({ 'gateway-b-signature': header }, Buffer.from(payload), { secrets: [SIGNING_SECRET] }),
      true,
    );
    assert.equal(verifyWebhook({ 'gateway-b-signature': header }, `${payload} `, { secrets: [SIGNING_SECRET] }), false);
    assert.equal(verifyWebhook({ 'gateway-b-signature': header }, payload, { secrets: ['whsec_other'] }), false);
    assert.equal(verifyWebhook({}, payload, { secrets: [SIGNING_SECRET] }), false);
    assert.equal(verifyWebhook({ 'gateway-b-signature': 'garbage' }, payload, { secrets: [SIGNING_SECRET] }), false);
  });

  test('several v1 values: one valid is enough (rotation); the previous secret still verifies', () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const valid = stripe.webhooks
      .generateTestHeaderString({ payload, secret: SIGNING_SECRET, timestamp })
      .split('v1=')[1]!;
    const header = `t=${timestamp},v1=${'0'.repeat(64)},v1=${valid}`;
    assert.equal(verifyWebhook({ 'gateway-b-signature': header }, payload, { secrets: [SIGNING_SECRET] }), true);
    assert.equal(
      verifyWebhook({ 'gateway-b-signature': header }, payload, { secrets: ['whsec_new', SIGNING_SECRET] }),
      true,
    );
    assert.equal(
      verifyWebhook({ 'gateway-b-signature': `t=${timestamp},v1=${'0'.repeat(64)}` }, payload, {
        secrets: [SIGNING_SECRET],
      }),
      false,
    );
  });

  test('signatures older or newer than the 5-minute tolerance are refused', () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: SIGNING_SECRET, timestamp });
    const at = (offsetSeconds: number) => new Date((timestamp + offsetSeconds) * 1000);
    assert.equal(
      verifyWebhook({ 'gateway-b-signature': header }, payload, { secrets: [SIGNING_SECRET], now: at(300) }),
      true,
    );
    assert.equal(
      verifyWebhook({ 'gateway-b-signature': header }, payload, { secrets: [SIGNING_SECRET], now: at(301) }),
      false,
    );
    assert.equal(
      verifyWebhook({ 'gateway-b-signature': header }, payload, { secrets: [SIGNING_SECRET], now: at(-301) }),
      false,
    );
    assert.equal(
      verifyWebhook({ 'gateway-b-signature': header }, payload, {
        secrets: [SIGNING_SECRET],
        now: at(900),
        toleranceSeconds: 1_000,
      }),
      true,
    );
  });
});
