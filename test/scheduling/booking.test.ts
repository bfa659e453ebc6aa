import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { AppError } from '../../src/http/errors.ts';
import { bookSlot, isBookableSlot } from '../../src/modules/scheduling/scheduling.service.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { insertCompany, insertOrder, insertSchedule, startAppAt } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';

const NOW = new Date('2025-03-05T13:30:00Z'); // Wednesday 10:30 in São Paulo
const WED_1430_SP = new Date('2025-03-12T17:30:00Z');

const isConflict = (error: unknown) => error instanceof AppError && error.code === 'conflict';

for (const engine of engines()) {
  describe(`slot booking on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;
    let newYork: number;

    before(async () => {
      database = await engine.open();
      app = await startAppAt(database, NOW);
      shop = await createTenant(database);
      other = await createTenant(database);
      newYork = await insertCompany(database, shop, { time_zone: 'America/New_York' });
      await insertSchedule(database, shop, shop.companyId, 3, '09:00', '12:00', 60);
      await insertSchedule(database, shop, shop.companyId, 3, '14:00', '16:00', 30);
      await insertSchedule(database, shop, newYork, 0, '01:00', '04:00', 30);
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    const book = (scheduledAt: Date, tenant = shop, companyId = shop.companyId, orderId: number | null = null) =>
      database.db
        .transaction()
        .execute((trx) => bookSlot(trx, { accountId: tenant.accountId, companyId, scheduledAt, orderId }));

    describe('isBookableSlot', () => {
      test('a future instant that is exactly one of the company’s slots', async () => {
        assert.equal(await isBookableSlot(database.db, shop.companyId, WED_1430_SP, NOW), true);
        assert.equal(await isBookableSlot(database.db, shop.companyId, new Date('2025-03-05T14:00:00Z'), NOW), true); // today 11:00
      });

      test('not between slots, outside the intervals, on a day without schedule, in the past, or for an unknown company', async () => {
        const refused: Array<[string, Date, number?]> = [
          ['a minute off', new Date('2025-03-12T17:31:00Z')],
          ['a second off', new Date('2025-03-12T17:30:01Z')],
          ['after the last slot', new Date('2025-03-12T19:00:00Z')],
          ['a Thursday', new Date('2025-03-13T12:00:00Z')],
          ['already past today', new Date('2025-03-05T12:00:00Z')],
          ['right now', new Date('2025-03-05T13:30:00Z')],
          ['unknown company', WED_1430_SP, 99_999_999],
        ];
        for (const [what, instant, company] of refused) {
          assert.equal(await isBookableSlot(database.db, company ?? shop.companyId, instant, NOW), false, what);
        }
      });

      test('across DST: a skipped wall time never matches, a repeated one only at its first instant', async () => {
        assert.equal(await isBookableSlot(database.db, newYork, new Date('2025-03-09T07:00:00Z'), NOW), true); // 03:00 EDT
        assert.equal(await isBookableSlot(database.db, newYork, new Date('2025-03-09T06:30:00Z'), NOW), true); // 01:30 EST
        assert.equal(await isBookableSlot(database.db, newYork, new Date('2025-11-02T05:30:00Z'), NOW), true); // first 01:30
        assert.equal(await isBookableSlot(database.db, newYork, new Date('2025-11-02T06:30:00Z'), NOW), false); // second 01:30
      });
    });

    describe('bookSlot', () => {
      test('books once; the same slot again is a conflict; after a cancellation it can be booked again', async () => {
        const at = new Date('2025-03-12T12:00:00Z');
        const order = await insertOrder(database, shop);
        const first = await book(at, shop, shop.companyId, order.id);
        assert.equal(typeof first.id, 'number');
        const stored = await database.db
          .selectFrom('appointment_bookings')
          .selectAll()
          .where('id', '=', first.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(
          [stored.order_id, stored.status, stored.scheduled_at.toISOString()],
          [order.id, 'booked', at.toISOString()],
        );
        await assert.rejects(
          book(at),
          (error: unknown) => isConflict(error) && /already been booked/.test((error as Error).message),
        );
        await database.db
          .updateTable('appointment_bookings')
          .set({ status: 'cancelled' })
          .where('id', '=', first.id)
          .returning('id')
          .execute();
        assert.equal(typeof (await book(at)).id, 'number');
      });

      test('the same instant at another company or account is a different slot', async () => {
        const at = new Date('2025-03-12T13:00:00Z');
        await book(at);
        await book(at, shop, newYork);
        await book(at, other, other.companyId);
        const count = await database.db
          .selectFrom('appointment_bookings')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('scheduled_at', '=', at)
          .executeTakeFirstOrThrow();
        assert.equal(Number(count.n), 3);
      });

      test('a conflict leaves the caller’s transaction usable', async () => {
        const at = new Date('2025-03-12T14:00:00Z');
        await book(at);
        const after = await database.db.transaction().execute(async (trx) => {
          await assert.rejects(
            bookSlot(trx, { accountId: shop.accountId, companyId: shop.companyId, scheduledAt: at, orderId: null }),
            isConflict,
          );
          return (await sql<{ one: number }>`select 1 as one`.execute(trx)).rows[0]?.one;
        });
        assert.equal(after, 1);
      });

      test('a booked slot disappears from the available list', async () => {
        const listed = async () =>
          (await app.inject({ url: `/api/v1/companies/${shop.companyId}/available_schedules?date=2025-03-26` })).json();
        assert.ok((await listed()).includes('15:30'));
        await book(new Date('2025-03-26T18:30:00Z'));
        assert.equal((await listed()).includes('15:30'), false);
      });

      test('two concurrent bookings of one slot: exactly one succeeds', async () => {
        const at = new Date('2025-03-12T18:00:00Z');
        // Each transaction holds its insert a moment before committing, so on PostgreSQL the two truly overlap.
        const attempt = () =>
          database.db.transaction().execute(async (trx) => {
            const booked = await bookSlot(trx, {
              accountId: shop.accountId,
              companyId: shop.companyId,
              scheduledAt: at,
              orderId: null,
            });
            await sleep(50);
            return booked;
          });
        const results = await Promise.allSettled([attempt(), attempt()]);
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
        const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        assert.equal(rejected.length, 1);
        assert.ok(isConflict(rejected[0]!.reason), String(rejected[0]!.reason));
        const rows = await database.db
          .selectFrom('appointment_bookings')
          .select('id')
          .where('scheduled_at', '=', at)
          .where('status', '=', 'booked')
          .execute();
        assert.equal(rows.length, 1);
      });
    });
  });
}
