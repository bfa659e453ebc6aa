import assert from 'node:assert/strict';
import { constants, createHmac, createPublicKey, publicEncrypt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { getBoletoInfo, isValidBoleto, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { hasError, parsePix } from 'pix-utils';
import qs from 'qs';
import { GatewayRequestError } from '../../src/gateways/errors.ts';
import { GatewayCClient, verifyWebhook } from '../../src/gateways/gateway-c/index.ts';
import { GatewayUnavailableError, type CardCharge } from '../../src/gateways/port.ts';
import {
  BUYER,
  CARDS,
  dateInDays,
  idempotencyKey,
  KEYS,
  metadata,
  sandboxAction,
  startHarness,
  type Harness,
  type ReceivedWebhook,
} from './support.ts';

/** Written here from the format rules, not with the code under test. */
function plaintextOf(number: string, holderName = 'MARIA DA SILVA', expiry = '1230', cvv = '123'): string {
  return `card_number=${number}&card_holder_name=${encodeURIComponent(holderName)}&card_expiration_date=${expiry}&card_cvv=${cvv}`;
}

function encryptWith(key: { id: number; publicKey: string }, plaintext: string): string {
  return `${key.id}_${publicEncrypt({ key: key.publicKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(plaintext)).toString('base64')}`;
}

describe('gateway_c client against its sandbox', { timeout: 60_000 }, () => {
  let harness: Harness;
  let clockOffsetMs = 0;
  const client = new GatewayCClient();
  const account = () => harness.account('gateway_c');

  before(async () => {
    harness = await startHarness({ now: () => new Date(Date.now() + clockOffsetMs) });
  });
  after(() => harness.close());

  async function cardHash(number: string, holderName?: string): Promise<string> {
    return encryptWith(await client.createCardHashKey(account()), plaintextOf(number, holderName));
  }

  async function cardCharge(number: string, overrides: Partial<CardCharge> = {}): Promise<CardCharge> {
    return {
      amountCents: 10_000,
      installments: 1,
      cardToken: await cardHash(number),
      saveForLater: false,
      buyer: BUYER,
      description: 'Livro',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
      ...overrides,
    };
  }

  const postbackFor = (status: string, id: string) => (webhook: ReceivedWebhook) => {
    const body = qs.parse(webhook.rawBody);
    return body.current_status === status && body.id === id;
  };

  /** Checks the X-Hub-Signature with our verifier and with an HMAC computed here, then parses both body forms. */
  function verified(webhook: ReceivedWebhook) {
    assert.equal(webhook.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(
      webhook.headers['x-hub-signature'],
      `sha1=${createHmac('sha1', KEYS.gateway_c.secretKey).update(webhook.rawBody).digest('hex')}`,
    );
    assert.equal(verifyWebhook(webhook.headers, webhook.rawBody, { apiKey: KEYS.gateway_c.secretKey }), true);
    assert.equal(verifyWebhook(webhook.headers, webhook.rawBody, { apiKey: 'ak_test_wrong_key_123' }), false);
    assert.equal(
      verifyWebhook(webhook.headers, webhook.rawBody.replace('current_status=', 'current_status=x'), {
        apiKey: KEYS.gateway_c.secretKey,
      }),
      false,
    );
    const event = client.parseWebhook(webhook.rawBody);
    assert.deepEqual(client.parseWebhook(qs.parse(webhook.rawBody)), event);
    return event;
  }

  test('a card hash key is a fresh RSA-2048 PEM with an integer id, served to browsers', async () => {
    const key = await client.createCardHashKey(account());
    assert.ok(Number.isInteger(key.id));
    assert.match(key.publicKey, /^-----BEGIN PUBLIC KEY-----\n/);
    assert.equal(createPublicKey(key.publicKey).asymmetricKeyDetails?.modulusLength, 2048);
    assert.ok(Math.abs(key.dateCreated.getTime() - Date.now()) < 5_000);
    const other = await client.createCardHashKey(account());
    assert.notEqual(other.id, key.id);
    assert.notEqual(other.publicKey, key.publicKey);
    const raw = await fetch(`${harness.sandboxes.baseUrlFor('gateway_c')}/card_hash_keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ encryption_key: KEYS.gateway_c.publicKey }),
    });
    assert.equal(raw.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(Object.keys(await raw.json()).sort(), ['date_created', 'id', 'public_key']);
    await assert.rejects(client.createCardHashKey({ ...account(), publicKey: null }), GatewayRequestError);
    await assert.rejects(
      client.createCardHashKey({ ...account(), publicKey: KEYS.gateway_c.secretKey }),
      (error) => error instanceof GatewayRequestError && error.code === 'authentication_failed',
    );
  });

  test('an approved card hash is paid; the sandbox decrypted exactly what the browser encrypted', async () => {
    const holderName = 'JOSÉ D’ÁVILA & FILHOS';
    const outcome = await client.chargeCard(account(), {
      ...(await cardCharge(CARDS.approved)),
      cardToken: await cardHash(CARDS.approved, holderName),
      saveForLater: true,
    });
    assert.ok(outcome.status === 'paid' && outcome.savedMethod);
    assert.match(outcome.gatewayId, /^\d+$/);
    assert.deepEqual(
      { ...outcome.savedMethod, reference: 'x' },
      { reference: 'x', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 },
    );
    const transaction = await fetch(
      `${harness.sandboxes.baseUrlFor('gateway_c')}/transactions/${outcome.gatewayId}?api_key=${KEYS.gateway_c.secretKey}`,
    ).then((response) => response.json());
    assert.equal(transaction.card.holder_name, holderName);
    assert.equal(transaction.card.first_digits, '411111');
    assert.equal(transaction.card.expiration_date, '1230');

    const event = verified(await harness.receiver.next(postbackFor('paid', outcome.gatewayId)));
    assert.equal(event.type, 'transaction_status_changed');
    const [action] = event.actions;
    assert.ok(
      action?.kind === 'payment_paid' && action.gatewayId === outcome.gatewayId && action.amountCents === 10_000,
    );
    // The postback carries the transaction's card; so do the lookups, by id and by the reference_key.
    assert.deepEqual(action.savedMethod, outcome.savedMethod);
    assert.deepEqual(await client.fetchCharge(account(), outcome.gatewayId), {
      gatewayId: outcome.gatewayId,
      status: 'paid',
      savedMethod: outcome.savedMethod,
    });
    assert.deepEqual(
      await client.findCharge(account(), { paymentUid: 'unused', idempotencyKey: transaction.reference_key }),
      { gatewayId: outcome.gatewayId, status: 'paid', savedMethod: outcome.savedMethod },
    );

    const again = await client.chargeSavedMethod(account(), {
      amountCents: 2_000,
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
    // gateway_c keeps every card it charges, so a lookup names one even for a charge that did not ask: the caller decides.
    const unasked = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    assert.ok(unasked.status === 'paid' && unasked.savedMethod === undefined);
    assert.match((await client.fetchCharge(account(), unasked.gatewayId)).savedMethod?.reference ?? '', /^card_/);
  });

  test('declined and insufficient-funds cards are refused transactions', async () => {
    const declined = await client.chargeCard(account(), await cardCharge(CARDS.declined));
    assert.ok(declined.status === 'declined' && declined.code === 'declined' && declined.gatewayId !== null);
    assert.equal(await client.fetchStatus(account(), declined.gatewayId!), 'failed');
    const event = verified(await harness.receiver.next(postbackFor('refused', declined.gatewayId!)));
    assert.deepEqual(event.actions, [
      { kind: 'payment_failed', gatewayId: declined.gatewayId, reason: declined.message },
    ]);
    const poor = await client.chargeCard(account(), await cardCharge(CARDS.insufficientFunds));
    assert.ok(poor.status === 'declined' && poor.code === 'insufficient_funds');
  });

  test('the gateway-error card is GatewayUnavailableError(error); the timeout card is GatewayUnavailableError(timeout)', async () => {
    await assert.rejects(
      client.chargeCard(account(), await cardCharge(CARDS.gatewayError)),
      (error) => error instanceof GatewayUnavailableError && error.kind === 'error' && error.gateway === 'gateway_c',
    );
    const started = Date.now();
    await assert.rejects(
      new GatewayCClient({ timeoutMs: 300 }).chargeCard(account(), await cardCharge(CARDS.gatewayTimeout)),
      (error) => error instanceof GatewayUnavailableError && error.kind === 'timeout',
    );
    assert.ok(Date.now() - started < 5_000);
  });

  test('a card hash key works once: a second hash under it, an unknown key and a malformed hash are refused', async () => {
    const key = await client.createCardHashKey(account());
    const first = await client.chargeCard(account(), {
      ...(await cardCharge(CARDS.approved)),
      cardToken: encryptWith(key, plaintextOf(CARDS.approved)),
    });
    assert.equal(first.status, 'paid');
    const reused = await client.chargeCard(account(), {
      ...(await cardCharge(CARDS.approved)),
      cardToken: encryptWith(key, plaintextOf(CARDS.approved)),
    });
    assert.ok(reused.status === 'declined' && reused.code === 'invalid_token' && reused.gatewayId === null);
    assert.match(reused.message, /already used/);
    const unknown = await client.chargeCard(account(), {
      ...(await cardCharge(CARDS.approved)),
      cardToken: encryptWith({ ...key, id: 999_999 }, plaintextOf(CARDS.approved)),
    });
    assert.ok(unknown.status === 'declined' && unknown.code === 'invalid_token');
    const malformed = await client.chargeCard(account(), {
      ...(await cardCharge(CARDS.approved)),
      cardToken: 'not-a-card-hash',
    });
    assert.ok(malformed.status === 'declined' && malformed.code === 'invalid_token');
    const otherKey = await client.createCardHashKey(account());
    const wrongKey = await client.chargeCard(account(), {
      ...(await cardCharge(CARDS.approved)),
      cardToken: `${otherKey.id}_${encryptWith(key, plaintextOf(CARDS.approved)).split('_')[1]}`,
    });
    assert.ok(wrongKey.status === 'declined' && wrongKey.code === 'invalid_token');
  });

  test('a card hash key older than five minutes is refused', async () => {
    const charge = await cardCharge(CARDS.approved);
    clockOffsetMs = 5 * 60_000 + 1_000;
    try {
      const outcome = await client.chargeCard(account(), charge);
      assert.ok(outcome.status === 'declined' && outcome.code === 'invalid_token');
      assert.match(outcome.message, /expired/);
    } finally {
      clockOffsetMs = 0;
    }
  });

  test('a pix is a dynamic BR Code; confirming it sends a signed paid postback', async () => {
    const pix = await client.createPix(account(), {
      amountCents: 7_990,
      expiresAt: new Date(Date.now() + 3_600_000),
      buyer: BUYER,
      description: 'Livro',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    const parsed = parsePix(pix.brCode);
    assert.ok(!hasError(parsed) && parsed.type === 'DYNAMIC' && parsed.url.includes('/gateway_c/qr/'));
    assert.equal(isValidPixPayload(pix.brCode), true);
    assert.equal(await client.fetchStatus(account(), pix.gatewayId), 'waiting_payment');
    await sandboxAction(harness, 'gateway_c', pix.gatewayId, 'confirm');
    const [action] = verified(await harness.receiver.next(postbackFor('paid', pix.gatewayId))).actions;
    assert.ok(action?.kind === 'payment_paid' && action.amountCents === 7_990);
    assert.equal(await client.fetchStatus(account(), pix.gatewayId), 'paid');
  });

  test('a boleto is a valid slip; expiring it sends an expired postback', async () => {
    const dueDate = dateInDays(2);
    const boleto = await client.createBoleto(account(), {
      amountCents: 7_990,
      dueDate,
      buyer: BUYER,
      description: 'Livro',
      metadata: metadata(),
      idempotencyKey: idempotencyKey(),
    });
    assert.equal(boleto.dueDate, dueDate);
    assert.equal(isValidBoleto(boleto.digitableLine), true);
    assert.equal(getBoletoInfo(boleto.digitableLine)?.bankCode, '001');
    assert.equal(boleto.beneficiaryCode, '0452-9 / 00024680-8', 'the agency and account the slip prints');
    await sandboxAction(harness, 'gateway_c', boleto.gatewayId, 'expire');
    assert.deepEqual(verified(await harness.receiver.next(postbackFor('expired', boleto.gatewayId))).actions, [
      { kind: 'payment_expired', gatewayId: boleto.gatewayId },
    ]);
    assert.equal(await client.fetchStatus(account(), boleto.gatewayId), 'cancelled');
  });

  test('partial then full refunds, each with its postback; refunding more is refused', async () => {
    const paid = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    const first = await client.refund(account(), paid.gatewayId!, 4_000, idempotencyKey());
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'partially_refunded');
    assert.deepEqual(
      verified(await harness.receiver.next(postbackFor('partially_refunded', paid.gatewayId!))).actions,
      [{ kind: 'payment_refunded', gatewayId: paid.gatewayId, amountCents: 4_000, refundId: first.refundId }],
    );
    const second = await client.refund(account(), paid.gatewayId!, 6_000, idempotencyKey());
    assert.notEqual(second.refundId, first.refundId);
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'refunded');
    assert.deepEqual(verified(await harness.receiver.next(postbackFor('refunded', paid.gatewayId!))).actions, [
      { kind: 'payment_refunded', gatewayId: paid.gatewayId, amountCents: 6_000, refundId: second.refundId },
    ]);
    await assert.rejects(
      client.refund(account(), paid.gatewayId!, 1, idempotencyKey()),
      (error) => error instanceof GatewayRequestError && error.code === 'invalid_state',
    );
  });

  test('void cancels a waiting pix and refunds a paid card in full; a dispute is charged_back', async () => {
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
    assert.deepEqual(verified(await harness.receiver.next(postbackFor('canceled', pix.gatewayId))).actions, [
      { kind: 'payment_cancelled', gatewayId: pix.gatewayId },
    ]);

    const paid = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    await client.voidCharge(account(), paid.gatewayId!, idempotencyKey());
    assert.equal(await client.fetchStatus(account(), paid.gatewayId!), 'refunded');
    const [refund] = verified(await harness.receiver.next(postbackFor('refunded', paid.gatewayId!))).actions;
    assert.ok(refund?.kind === 'payment_refunded' && refund.amountCents === 10_000);

    const disputed = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    await sandboxAction(harness, 'gateway_c', disputed.gatewayId!, 'dispute');
    const [dispute] = verified(await harness.receiver.next(postbackFor('chargedback', disputed.gatewayId!))).actions;
    assert.ok(dispute?.kind === 'payment_disputed' && dispute.amountCents === 10_000);
    assert.equal(await client.fetchStatus(account(), disputed.gatewayId!), 'charged_back');
  });

  test('the reference key makes a retried transaction return the first one', async () => {
    const charge = await cardCharge(CARDS.approved);
    const first = await client.chargeCard(account(), charge);
    assert.deepEqual(await client.chargeCard(account(), charge), first);
  });

  test('a wrong api key is refused and another account cannot read the transaction', async () => {
    const paid = await client.chargeCard(account(), await cardCharge(CARDS.approved));
    await assert.rejects(
      client.fetchStatus({ ...account(), secretKey: 'wrong' }, paid.gatewayId!),
      (error) => error instanceof GatewayRequestError && error.code === 'authentication_failed',
    );
    await assert.rejects(
      client.fetchStatus({ ...account(), secretKey: 'ak_test_another_account' }, paid.gatewayId!),
      (error) => error instanceof GatewayRequestError && error.code === 'not_found',
    );
  });
});
