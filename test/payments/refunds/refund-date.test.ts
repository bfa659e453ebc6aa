import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { engines } from '../../support/engines.ts';
import { type Merchant, type PayApp, usePayMerchant } from '../../support/pay-fixtures.ts';
import { paidCardOrder, remoteStatus } from './refund-fixtures.ts';

for (const engine of engines()) {
  describe(`the refund date on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const refund = (paymentId: number, payload: Record<string, unknown>) =>
      pay.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${paymentId}/refund`,
        headers: { authorization: `Bearer ${merchant.apiKey}` },
        payload,
      });
    const payment = (id: number) =>
      database.db
        .selectFrom('payments')
        .select(['status', 'refunded_cents', 'created_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();

    test('a date before the payment was created (year 0000 included) is a 422 on body/date and nothing is refunded', async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      const id = paid.paymentIds[0]!;
      const createdAt = (await payment(id)).created_at;
      for (const date of [
        '0000-01-01T00:00:00Z',
        '0001-01-01T00:00:00Z',
        '1900-01-01T00:00:00Z',
        new Date(createdAt.getTime() - 1).toISOString(),
      ]) {
        const res = await refund(id, { amount: 1, date });
        assert.equal(res.statusCode, 422, `${date}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        // Years before 1900 are outside every date field's range; later ones are checked against the payment.
        const expected = date < '1900' ? /should be >= 1900-01-01/ : /^is before the payment was created$/;
        assert.deepEqual(
          res.json().details.map((detail: { field: string }) => detail.field),
          ['body/date'],
        );
        assert.match(res.json().details[0].message, expected);
      }
      assert.deepEqual(await payment(id).then(({ status, refunded_cents }) => ({ status, refunded_cents })), {
        status: 'paid',
        refunded_cents: 0,
      });
      assert.equal(
        (await database.db.selectFrom('refunds').select('id').where('payment_id', '=', id).execute()).length,
        0,
      );
      assert.equal(await remoteStatus(pay, 'gateway_a', paid.gatewayIds[0]!), 'paid');
    });

    test('the creation instant itself, and any time up to now, is accepted and stored', async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      const id = paid.paymentIds[0]!;
      const createdAt = (await payment(id)).created_at;
      const res = await refund(id, { amount: 1, date: createdAt.toISOString() });
      assert.equal(res.statusCode, 200, res.body);
      const [row] = await database.db
        .selectFrom('refunds')
        .select('refunded_at')
        .where('payment_id', '=', id)
        .execute();
      assert.equal(row!.refunded_at.toISOString(), createdAt.toISOString());
    });
  });
}
