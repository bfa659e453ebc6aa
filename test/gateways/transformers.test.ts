import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WebhookPayloadError } from '../../src/gateways/errors.ts';
import * as a from '../../src/gateways/gateway-a/transformers.ts';
import type { GatewayACharge } from '../../src/gateways/gateway-a/types.ts';
import * as b from '../../src/gateways/gateway-b/transformers.ts';
import type { GatewayBPaymentIntent } from '../../src/gateways/gateway-b/types.ts';
import * as c from '../../src/gateways/gateway-c/transformers.ts';
import type { GatewayCTransaction } from '../../src/gateways/gateway-c/types.ts';

describe('gateway_a mapping', () => {
  const charge = (fields: Partial<GatewayACharge>, transactionStatus = 'captured') =>
    ({
      status: 'paid',
      payment_method: 'credit_card',
      refunded_amount: 0,
      last_transaction: { status: transactionStatus },
      ...fields,
    }) as GatewayACharge;

  test('charge statuses map onto the port', () => {
    assert.equal(a.remoteStatusFrom(charge({ status: 'pending' })), 'pending');
    assert.equal(a.remoteStatusFrom(charge({ status: 'pending', payment_method: 'pix' })), 'waiting_payment');
    assert.equal(a.remoteStatusFrom(charge({ status: 'paid', refunded_amount: 1 })), 'partially_refunded');
    assert.equal(a.remoteStatusFrom(charge({ status: 'failed' }, 'not_authorized')), 'failed');
    assert.equal(a.remoteStatusFrom(charge({ status: 'failed', payment_method: 'boleto' }, 'expired')), 'cancelled');
    assert.equal(a.remoteStatusFrom(charge({ status: 'canceled' })), 'cancelled');
    assert.equal(a.remoteStatusFrom(charge({ status: 'canceled', paid_at: '2026-01-01T00:00:00Z' })), 'refunded');
    assert.equal(a.remoteStatusFrom(charge({ status: 'chargedback' })), 'charged_back');
  });

  test('webhooks: unknown types are ignored, malformed bodies are refused', () => {
    assert.deepEqual(a.inboundEventFrom({ id: 'hook_1', type: 'charge.underpaid', data: { id: 'ch_1' } }).actions, [
      { kind: 'ignored', reason: 'charge.underpaid has no effect on a payment' },
    ]);
    assert.equal(a.inboundEventFrom({ id: 'hook_1', type: 'customer.created', data: {} }).actions[0]!.kind, 'ignored');
    assert.throws(() => a.inboundEventFrom({ type: 'charge.paid', data: {} }), WebhookPayloadError);
    assert.throws(() => a.inboundEventFrom('text'), WebhookPayloadError);
    assert.throws(
      () => a.inboundEventFrom({ id: 'hook_1', type: 'charge.refunded', data: { id: 'ch_1', refunds: [] } }),
      WebhookPayloadError,
    );
    assert.equal(a.webhookCompanyId({ data: { metadata: { company_id: '0' } } }), null);
    assert.equal(a.webhookCompanyId({ data: { metadata: { company_id: 12 } } }), 12);
    assert.equal(a.webhookCompanyId({}), null);
  });

  test('a paid charge names a saved card only when the card has an id; lookups do the same', () => {
    const card = {
      first_six_digits: '411111',
      last_four_digits: '1111',
      brand: 'visa',
      holder_name: 'M',
      exp_month: 12,
      exp_year: 2031,
    };
    const saved = { reference: 'card_1', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2031 };
    const paidEvent = (withId: boolean) =>
      a.inboundEventFrom({
        id: 'hook_1',
        type: 'charge.paid',
        data: {
          id: 'ch_1',
          paid_at: '2026-05-01T10:00:00Z',
          metadata: {},
          last_transaction: { status: 'captured', card: withId ? { ...card, id: 'card_1' } : card },
        },
      }).actions[0];
    assert.deepEqual(paidEvent(true), {
      kind: 'payment_paid',
      gatewayId: 'ch_1',
      paidAt: new Date('2026-05-01T10:00:00Z'),
      amountCents: undefined,
      savedMethod: saved,
    });
    assert.equal((paidEvent(false) as { savedMethod?: unknown }).savedMethod, undefined);
    assert.deepEqual(
      a.foundChargeFrom(
        charge({
          id: 'ch_1',
          last_transaction: {
            status: 'captured',
            card: { ...card, id: 'card_1' },
          } as GatewayACharge['last_transaction'],
        }),
      ),
      { gatewayId: 'ch_1', status: 'paid', savedMethod: saved },
    );
    assert.deepEqual(a.foundChargeFrom(charge({ id: 'ch_2', payment_method: 'pix' })), {
      gatewayId: 'ch_2',
      status: 'paid',
    });
  });

  test('requests carry the metadata as text and the buyer as a customer', () => {
    const request = a.boletoOrderRequest({
      amountCents: 100,
      dueDate: '2030-01-02',
      buyer: { name: 'Empresa', email: 'e@x.com', document: '11.222.333/0001-81' },
      description: 'd',
      metadata: { companyId: 7, orderUid: 'o', paymentUid: 'p' },
      idempotencyKey: 'k',
    });
    assert.deepEqual(request.metadata, { company_id: '7', order_uid: 'o', payment_uid: 'p' });
    assert.deepEqual(request.customer, {
      name: 'Empresa',
      email: 'e@x.com',
      type: 'company',
      document: '11222333000181',
    });
    assert.deepEqual(request.payments[0], {
      payment_method: 'boleto',
      amount: 100,
      boleto: { due_at: '2030-01-02T00:00:00Z' },
    });
    const pix = a.pixOrderRequest(
      {
        amountCents: 100,
        expiresAt: new Date('2030-01-01T00:30:00Z'),
        buyer: { name: 'A', email: 'a@x.com' },
        description: 'd',
        metadata: { companyId: 7, orderUid: 'o', paymentUid: 'p' },
        idempotencyKey: 'k',
      },
      new Date('2030-01-01T00:00:00Z'),
    );
    assert.deepEqual(pix.payments[0], { payment_method: 'pix', amount: 100, pix: { expires_in: 1_800 } });
  });
});

describe('gateway_b mapping', () => {
  const intent = (fields: Partial<GatewayBPaymentIntent>) =>
    ({ status: 'succeeded', last_payment_error: null, latest_charge: null, ...fields }) as GatewayBPaymentIntent;

  test('intent statuses map onto the port', () => {
    assert.equal(b.remoteStatusFrom(intent({ status: 'requires_payment_method' })), 'pending');
    assert.equal(
      b.remoteStatusFrom(
        intent({
          status: 'requires_payment_method',
          last_payment_error: { type: 'card_error', code: 'card_declined', message: 'no' },
        }),
      ),
      'failed',
    );
    assert.equal(
      b.remoteStatusFrom(
        intent({
          status: 'requires_payment_method',
          last_payment_error: { type: 'invalid_request_error', code: b.ATTEMPT_EXPIRED, message: 'late' },
        }),
      ),
      'cancelled',
    );
    assert.equal(b.remoteStatusFrom(intent({ status: 'requires_action' })), 'waiting_payment');
    assert.equal(b.remoteStatusFrom(intent({ status: 'processing' })), 'pending');
    assert.equal(b.remoteStatusFrom(intent({ status: 'canceled' })), 'cancelled');
    assert.equal(b.remoteStatusFrom(intent({ status: 'succeeded', latest_charge: 'ch_1' })), 'paid');
  });

  test('webhooks: unknown types are ignored, malformed events are refused', () => {
    assert.equal(
      b.inboundEventFrom({ id: 'evt_1', type: 'customer.created', data: { object: { id: 'cus_1' } } }).actions[0]!.kind,
      'ignored',
    );
    assert.equal(
      b.inboundEventFrom({ id: 'evt_1', type: 'charge.refunded', data: { object: { id: 'ch_1' } } }).actions[0]!.kind,
      'ignored',
    );
    assert.throws(
      () =>
        b.inboundEventFrom({
          id: 'evt_1',
          type: 'charge.refunded',
          data: { object: { id: 'ch_1', payment_intent: 'pi_1', refunds: { data: [] } } },
        }),
      WebhookPayloadError,
    );
    assert.throws(() => b.inboundEventFrom({ id: 'evt_1', data: {} }), WebhookPayloadError);
  });

  test('an intent that saved its card (setup_future_usage) names its payment method: with the card when expanded, by reference in events', () => {
    const method = {
      id: 'pm_1',
      object: 'payment_method',
      type: 'card',
      card: { brand: 'visa', last4: '4242', exp_month: 3, exp_year: 2032, funding: 'credit' },
      created: 1,
    } as const;
    const saving = intent({
      id: 'pi_1',
      payment_method_types: ['card'],
      setup_future_usage: 'off_session',
      payment_method: method,
    });
    assert.deepEqual(b.foundChargeFrom(saving), {
      gatewayId: 'pi_1',
      status: 'paid',
      savedMethod: { reference: 'pm_1', brand: 'visa', last4: '4242', expMonth: 3, expYear: 2032 },
    });
    assert.deepEqual(b.foundChargeFrom({ ...saving, setup_future_usage: null }), { gatewayId: 'pi_1', status: 'paid' });
    const event = (fields: Record<string, unknown>) =>
      b.inboundEventFrom({
        id: 'evt_1',
        type: 'payment_intent.succeeded',
        created: 1_770_000_000,
        data: {
          object: {
            id: 'pi_1',
            object: 'payment_intent',
            amount_received: 100,
            payment_method_types: ['card'],
            payment_method: 'pm_1',
            ...fields,
          },
        },
      }).actions[0] as { savedMethod?: unknown };
    assert.deepEqual(event({ setup_future_usage: 'off_session' }).savedMethod, {
      reference: 'pm_1',
      brand: null,
      last4: null,
      expMonth: null,
      expYear: null,
    });
    assert.equal(event({ setup_future_usage: null }).savedMethod, undefined);
    assert.equal(event({ setup_future_usage: 'off_session', payment_method_types: ['pix'] }).savedMethod, undefined);
  });

  test('the card form asks for installments only above one and saves the card only when asked', () => {
    const base = {
      amountCents: 100,
      installments: 1,
      confirmationTokenId: 'ctoken_1',
      saveForLater: false,
      buyer: { name: 'A', email: 'a@x.com' },
      description: 'd',
      metadata: { companyId: 7, orderUid: 'o', paymentUid: 'p' },
      idempotencyKey: 'k',
    };
    const single = b.cardIntentForm(base);
    assert.deepEqual(single.payment_method_options, {});
    assert.equal(single.setup_future_usage, undefined);
    const split = b.cardIntentForm({ ...base, installments: 4, saveForLater: true });
    assert.deepEqual(split.payment_method_options, {
      card: { installments: { plan: { count: 4, interval: 'month', type: 'fixed_count' } } },
    });
    assert.equal(split.setup_future_usage, 'off_session');
    assert.equal(b.cardIntentForm({ ...base, confirmationTokenId: undefined }).confirmation_token, undefined);
  });
});

describe('gateway_c mapping', () => {
  test('transaction statuses map onto the port', () => {
    const expected = {
      processing: 'pending',
      waiting_payment: 'waiting_payment',
      paid: 'paid',
      partially_refunded: 'partially_refunded',
      refunded: 'refunded',
      refused: 'failed',
      canceled: 'cancelled',
      expired: 'cancelled',
      chargedback: 'charged_back',
    } as const;
    for (const [status, remote] of Object.entries(expected))
      assert.equal(c.remoteStatusFrom({ status } as GatewayCTransaction), remote, status);
  });

  test('postbacks: raw text, Buffer or parsed form give the same event; others are ignored or refused', () => {
    const raw =
      'postback_id=po_1&event=transaction_status_changed&id=7000001&current_status=paid&transaction%5Bpaid_amount%5D=990&transaction%5Bdate_updated%5D=2026-05-01T10%3A00%3A00.000Z';
    const event = c.inboundEventFrom(raw);
    assert.deepEqual(event, {
      eventId: 'po_1',
      type: 'transaction_status_changed',
      actions: [
        { kind: 'payment_paid', gatewayId: '7000001', paidAt: new Date('2026-05-01T10:00:00Z'), amountCents: 990 },
      ],
    });
    assert.deepEqual(c.inboundEventFrom(Buffer.from(raw)), event);
    assert.equal(
      c.inboundEventFrom('postback_id=po_2&event=transaction_status_changed&id=1&current_status=waiting_payment')
        .actions[0]!.kind,
      'ignored',
    );
    assert.equal(
      c.inboundEventFrom('postback_id=po_3&event=subscription_status_changed&id=1&current_status=paid').actions[0]!
        .kind,
      'ignored',
    );
    assert.throws(
      () => c.inboundEventFrom('event=transaction_status_changed&id=1&current_status=paid'),
      WebhookPayloadError,
    );
    assert.throws(
      () => c.inboundEventFrom('postback_id=po_4&event=transaction_status_changed&id=1&current_status=refunded'),
      WebhookPayloadError,
    );
  });

  test('a paid card postback names its card (transaction[card]); a refused card or a pix names none', () => {
    const card =
      'transaction%5Bcard%5D%5Bid%5D=card_9&transaction%5Bcard%5D%5Bbrand%5D=visa&transaction%5Bcard%5D%5Blast_digits%5D=0267&transaction%5Bcard%5D%5Bexpiration_date%5D=1231';
    const postback = (method: string, extra: string) =>
      `postback_id=po_1&event=transaction_status_changed&id=7000001&current_status=paid&transaction%5Bpayment_method%5D=${method}&transaction%5Bdate_updated%5D=2026-05-01T10%3A00%3A00.000Z&${extra}`;
    const savedOf = (raw: string) => (c.inboundEventFrom(raw).actions[0] as { savedMethod?: unknown }).savedMethod;
    assert.deepEqual(savedOf(postback('credit_card', `${card}&transaction%5Bcard%5D%5Bvalid%5D=true`)), {
      reference: 'card_9',
      brand: 'visa',
      last4: '0267',
      expMonth: 12,
      expYear: 2031,
    });
    assert.equal(savedOf(postback('credit_card', `${card}&transaction%5Bcard%5D%5Bvalid%5D=false`)), undefined);
    assert.equal(savedOf(postback('pix', card)), undefined);
    const transaction = {
      id: 7000001,
      status: 'paid',
      payment_method: 'credit_card',
      card: {
        object: 'card',
        id: 'card_9',
        brand: 'visa',
        holder_name: 'M',
        first_digits: '400000',
        last_digits: '0267',
        expiration_date: '1231',
        valid: true,
      },
    } as GatewayCTransaction;
    assert.deepEqual(c.foundChargeFrom(transaction), {
      gatewayId: '7000001',
      status: 'paid',
      savedMethod: { reference: 'card_9', brand: 'visa', last4: '0267', expMonth: 12, expYear: 2031 },
    });
  });
});
