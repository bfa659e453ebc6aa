import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  IN_FLIGHT_LIFETIME_MS,
  retryAfterSeconds,
} from '../../../src/modules/payments/attempts/attempt-claim.service.ts';

const start = new Date('2026-03-02T12:00:00.000Z');
const after = (ms: number) => new Date(start.getTime() + ms);
const MINUTE = 60_000;

describe('Retry-After of a 409 payment_in_progress', () => {
  test('a second while the other attempt’s gateway call may still be answering', () => {
    assert.equal(retryAfterSeconds({ startedAt: start }, after(2_000)), 1);
  });

  test('an unanswered call: two minutes after it was recorded unanswered, reconciliation’s first look', () => {
    assert.equal(retryAfterSeconds({ startedAt: start, unansweredAt: after(1_000) }, after(30_000)), 91);
  });

  test('no answer recorded (the process died during the call): the recovery two minutes after the intent, then every five minutes', () => {
    assert.equal(retryAfterSeconds({ startedAt: start }, after(3 * MINUTE)), 240);
    assert.equal(retryAfterSeconds({ startedAt: start }, after(2 * MINUTE)), 300);
  });

  test('never past the in-flight mark’s lifetime', () => {
    assert.equal(IN_FLIGHT_LIFETIME_MS, 35 * MINUTE);
    assert.equal(retryAfterSeconds({ startedAt: start, unansweredAt: start }, after(34 * MINUTE)), 60);
  });
});
