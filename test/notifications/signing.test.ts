import assert from 'node:assert/strict';
import { test } from 'node:test';
import Stripe from 'stripe';
import { deliveryHeaders, eventBody } from '../../src/modules/notifications/signing.ts';
import { verifiedBy } from './receiver.ts';

const stripe = new Stripe('sk_test_only_used_for_its_webhook_helpers');
const now = new Date();
const body = eventBody({
  id: 'evt_0123456789abcdef01234567',
  type: 'order.paid',
  created_at: now,
  data: { order: { id: 7, status: 'paid' } },
});
const signed = (secrets: string[]) =>
  deliveryHeaders({
    eventId: 'evt_0123456789abcdef01234567',
    eventType: 'order.paid',
    deliveryId: 'dlv_1',
    attempt: 1,
    body,
    secrets,
    now,
  });

test('Checkout-Signature verifies with the stripe package, which uses the same t=,v1= scheme', () => {
  const header = signed(['whsec_current'])['checkout-signature']!;
  const event = stripe.webhooks.constructEvent(body, header, 'whsec_current');
  assert.equal(event.id, 'evt_0123456789abcdef01234567');
  assert.throws(() => stripe.webhooks.constructEvent(body, header, 'whsec_other'));
  assert.throws(() => stripe.webhooks.constructEvent(body.replace('paid', 'refunded'), header, 'whsec_current'));
});

test('during a rotation both secrets sign: a receiver with either one accepts, one with neither refuses', () => {
  const header = signed(['whsec_new', 'whsec_old'])['checkout-signature']!;
  assert.match(header, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  assert.equal(stripe.webhooks.constructEvent(body, header, 'whsec_old').id, 'evt_0123456789abcdef01234567');
  assert.equal(stripe.webhooks.constructEvent(body, header, 'whsec_new').id, 'evt_0123456789abcdef01234567');
  assert.deepEqual(verifiedBy(header, body, ['whsec_unknown'], now), []);
  assert.deepEqual(
    verifiedBy(header, body, ['whsec_old'], new Date(now.getTime() + 301_000)),
    [],
    'older than five minutes',
  );
});

test('the headers name the event, its type and the attempt; the body has id, type, created_at and data in that order', () => {
  const headers = signed(['whsec_current']);
  assert.deepEqual(
    {
      id: headers['checkout-event-id'],
      type: headers['checkout-event-type'],
      delivery: headers['checkout-delivery-id'],
      attempt: headers['checkout-delivery-attempt'],
      contentType: headers['content-type'],
    },
    {
      id: 'evt_0123456789abcdef01234567',
      type: 'order.paid',
      delivery: 'dlv_1',
      attempt: '1',
      contentType: 'application/json',
    },
  );
  assert.deepEqual(Object.keys(JSON.parse(body)), ['id', 'type', 'created_at', 'data']);
  assert.equal(JSON.parse(body).created_at, now.toISOString());
});
