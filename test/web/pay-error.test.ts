import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { payError, PENDING_MESSAGE } from '../../src/web/client/api.ts';

const answer = (status: number, body: Record<string, unknown>) => ({
  status,
  body: { request_id: 'r', ...body } as Record<string, unknown>,
});

/** What the hosted page tells the buyer for each error answer of a pay endpoint. */
describe('hosted page pay errors', () => {
  test('a gateway timeout is pending: the buyer is told not to pay again, never that nothing was charged', () => {
    const problem = payError(
      answer(504, {
        code: 'gateway_timeout',
        message: 'The gateway did not answer in time; the payment will be reconciled',
      }),
    );
    assert.deepEqual(problem, { message: PENDING_MESSAGE, pending: true });
    assert.doesNotMatch(problem.message, /Nada foi cobrado/);
  });

  test('another attempt still at the gateway (409 payment_in_progress) is pending too, never a slot taken', () => {
    const problem = payError(
      answer(409, { code: 'payment_in_progress', message: 'A payment of this charge is under way at the gateway' }),
    );
    assert.deepEqual(problem, { message: PENDING_MESSAGE, pending: true });
  });

  test('a total that moved since the page quoted it asks the page to quote again; a slot taken names the date', () => {
    const moved = payError(
      answer(409, {
        code: 'conflict',
        message: 'The total changed since it was shown: 332.49 is due now',
        details: [{ field: 'body/expected_total', message: 'the total is now 332.49' }],
      }),
    );
    assert.equal(moved.requote, true);
    assert.match(moved.message, /O valor a pagar mudou/);
    const slot = payError(
      answer(409, {
        code: 'conflict',
        message: 'This slot was just booked',
        details: [{ field: 'body/scheduled_at', message: 'taken' }],
      }),
    );
    assert.equal(slot.field, 'schedule-date');
    assert.equal(slot.requote, undefined);
  });

  test('only a gateway failure (502) says nothing was charged', () => {
    assert.match(
      payError(answer(502, { code: 'gateway_error', message: 'The gateway failed; nothing was charged' })).message,
      /Nada foi cobrado/,
    );
    for (const status of [500, 503])
      assert.doesNotMatch(payError(answer(status, { code: 'x', message: 'boom' })).message, /Nada foi cobrado/);
  });

  test('the API message never reaches the buyer', () => {
    const cases = [
      answer(422, { code: 'business_rule_violation', message: 'This charge is cancelled and cannot be paid again' }),
      answer(422, {
        code: 'business_rule_violation',
        message: 'This cart was already paid (its order is paid) and cannot be paid again',
      }),
      answer(422, {
        code: 'validation_failed',
        message: 'body/products/0/quantity must be at most 5',
        details: [{ field: 'body/products/0/quantity', message: 'must be at most 5' }],
      }),
      answer(404, { code: 'not_found', message: 'Charge not found' }),
      answer(403, { code: 'forbidden', message: 'This origin or key may not access this resource' }),
      answer(400, { code: 'malformed_request', message: 'Unexpected token' }),
    ];
    for (const error of cases) {
      const { message } = payError(error);
      assert.ok(!message.includes(String(error.body.message)), message);
      assert.doesNotMatch(message, /\(|cannot|not found|must/, message);
    }
  });

  test('declines and coupon refusals are told at their field, in Portuguese', () => {
    assert.deepEqual(
      payError(
        answer(422, {
          code: 'business_rule_violation',
          message: 'The card was declined (insufficient_funds)',
          details: [{ field: 'credit_card_1_token', message: 'insufficient_funds' }],
        }),
      ),
      {
        field: 'card1-number',
        message: 'O cartão foi recusado por saldo ou limite insuficiente. Use outro cartão.',
      },
    );
    assert.deepEqual(payError(answer(422, { code: 'business_rule_violation', message: 'Coupon has expired' })), {
      field: 'coupon',
      message: 'Este cupom expirou.',
    });
  });
});
