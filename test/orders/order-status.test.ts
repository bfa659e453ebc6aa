import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import {
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  canTransition,
  transitionOrder,
  type OrderStatus,
} from '../../src/modules/orders/order-status.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertOrder, orderEvents } from '../support/records-fixtures.ts';

describe('the order transition table', () => {
  test('covers the eight statuses and only names statuses', () => {
    assert.deepEqual(Object.keys(ORDER_TRANSITIONS).sort(), [...ORDER_STATUSES].sort());
    for (const targets of Object.values(ORDER_TRANSITIONS))
      for (const to of targets) assert.ok(ORDER_STATUSES.includes(to));
  });

  test('refunded and cancelled are final; money received never returns to pending', () => {
    assert.deepEqual([ORDER_TRANSITIONS.refunded, ORDER_TRANSITIONS.cancelled], [[], []]);
    for (const from of ['partially_paid', 'paid', 'billed', 'partially_refunded'] as const) {
      assert.equal(canTransition(from, 'pending'), false, from);
      assert.equal(canTransition(from, 'waiting_payment'), false, from);
    }
    for (const status of ORDER_STATUSES) assert.equal(canTransition(status, status), false, status);
  });
});

for (const engine of engines()) {
  describe(`transitionOrder on ${engine.name}`, () => {
    let database: Database;
    let tenant: Tenant;
    let other: Tenant;

    before(async () => {
      database = await engine.open();
      tenant = await createTenant(database);
      other = await createTenant(database);
    });
    after(async () => database.close());

    const transition = (orderId: number, to: OrderStatus, accountId = tenant.accountId) =>
      database.db
        .transaction()
        .execute((trx) =>
          transitionOrder(trx, { accountId, orderId, to, cause: 'test', at: new Date('2024-05-05T05:05:05Z') }),
        );
    const statusOf = async (orderId: number) =>
      await database.db
        .selectFrom('orders')
        .select(['status', 'paid_at', 'cancelled_at'])
        .where('id', '=', orderId)
        .executeTakeFirstOrThrow();

    test('every pair of statuses: allowed moves update and log once, refused ones change nothing and log nothing', async () => {
      for (const from of ORDER_STATUSES) {
        for (const to of ORDER_STATUSES) {
          const order = await insertOrder(database, tenant, { status: from });
          const result = await transition(order.id, to);
          const after = await statusOf(order.id);
          const events = await orderEvents(database, order.id);
          if (canTransition(from, to)) {
            assert.deepEqual(result, { changed: true, from, to }, `${from} → ${to}`);
            assert.equal(after.status, to);
            assert.deepEqual(events, [
              { type: 'order.status_changed', from_status: from, to_status: to, cause: 'test', payment_id: null },
            ]);
          } else {
            assert.deepEqual(result, { changed: false, current: from }, `${from} → ${to}`);
            assert.equal(after.status, from);
            assert.deepEqual(events, [], `${from} → ${to} left an event`);
          }
        }
      }
    });

    test('paid stamps paid_at once; cancelled stamps cancelled_at', async () => {
      const order = await insertOrder(database, tenant, { status: 'pending' });
      await transition(order.id, 'paid');
      assert.equal((await statusOf(order.id)).paid_at?.toISOString(), '2024-05-05T05:05:05.000Z');
      const early = await insertOrder(database, tenant, {
        status: 'partially_paid',
        paid_at: new Date('2024-01-01T00:00:00Z'),
      });
      await transition(early.id, 'paid');
      assert.equal((await statusOf(early.id)).paid_at?.toISOString(), '2024-01-01T00:00:00.000Z');
      const cancelled = await insertOrder(database, tenant, { status: 'waiting_payment' });
      await transition(cancelled.id, 'cancelled');
      assert.equal((await statusOf(cancelled.id)).cancelled_at?.toISOString(), '2024-05-05T05:05:05.000Z');
    });

    test('another account cannot move an order', async () => {
      const order = await insertOrder(database, tenant, { status: 'pending' });
      assert.deepEqual(await transition(order.id, 'paid', other.accountId), { changed: false, current: undefined });
      assert.equal((await statusOf(order.id)).status, 'pending');
      assert.deepEqual(await orderEvents(database, order.id), []);
    });

    test('a duplicate event does not move the order twice', async () => {
      const order = await insertOrder(database, tenant, { status: 'pending' });
      const results = await Promise.all([
        transition(order.id, 'paid'),
        transition(order.id, 'paid'),
        transition(order.id, 'cancelled'),
      ]);
      assert.equal(results.filter((r) => r.changed).length, 1);
      assert.equal((await orderEvents(database, order.id)).length, 1);
    });

    test('a transition rolled back with its transaction leaves neither status nor event', async () => {
      const order = await insertOrder(database, tenant, { status: 'pending' });
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          await transitionOrder(trx, {
            accountId: tenant.accountId,
            orderId: order.id,
            to: 'paid',
            cause: 'test',
            at: new Date(),
          });
          throw new Error('gateway write failed');
        }),
      );
      assert.equal((await statusOf(order.id)).status, 'pending');
      assert.deepEqual(await orderEvents(database, order.id), []);
    });
  });
}
