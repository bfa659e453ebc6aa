import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { insertBooking, insertCompany, insertSchedule, startAppAt } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';

const WED = 3;
const THU = 4;
const SUN = 0;

for (const engine of engines()) {
  describe(`GET /companies/{id}/available_schedules on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;
    let saoPaulo: number;
    let newYork: number;
    let unscheduled: number;
    // Wednesday 2025-03-05, 10:30 in São Paulo (13:30 UTC).
    let now = new Date('2025-03-05T13:30:00Z');

    before(async () => {
      database = await engine.open();
      app = await startAppAt(database, () => now);
      shop = await createTenant(database);
      other = await createTenant(database);
      saoPaulo = shop.companyId;
      newYork = await insertCompany(database, shop, { time_zone: 'America/New_York' });
      unscheduled = await insertCompany(database, shop);
      await insertSchedule(database, shop, saoPaulo, WED, '09:00', '12:00', 60);
      await insertSchedule(database, shop, saoPaulo, WED, '14:00', '16:00', 30);
      await insertSchedule(database, shop, saoPaulo, WED, '21:00', '23:30', 30);
      await insertSchedule(database, shop, saoPaulo, THU, '08:00', '10:00', 60);
      await insertSchedule(database, shop, newYork, SUN, '01:00', '04:00', 30);
      await insertSchedule(database, shop, newYork, WED, '09:00', '11:00', 60);
      // Another account's company has the same weekday open all day; it must not leak into ours.
      await insertSchedule(database, other, other.companyId, WED, '00:00', '24:00', 60);
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    const slots = async (company: number | string, query: string) => {
      const res = await app.inject({ url: `/api/v1/companies/${company}/available_schedules${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as string[];
    };

    test('every slot of a future date’s intervals, without a key or an origin', async () => {
      assert.deepEqual(await slots(saoPaulo, '?date=2025-03-06'), ['08:00', '09:00']);
      assert.deepEqual(await slots(saoPaulo, '?date=2025-03-12'), [
        '09:00',
        '10:00',
        '11:00',
        '14:00',
        '14:30',
        '15:00',
        '15:30',
        '21:00',
        '21:30',
        '22:00',
        '22:30',
        '23:00',
      ]);
    });

    test('today: the slots already past in the company’s zone are gone', async () => {
      assert.deepEqual(await slots(saoPaulo, '?date=2025-03-05'), [
        '11:00',
        '14:00',
        '14:30',
        '15:00',
        '15:30',
        '21:00',
        '21:30',
        '22:00',
        '22:30',
        '23:00',
      ]);
    });

    test('the company’s zone decides what today is, not UTC', async () => {
      now = new Date('2025-03-06T01:10:00Z'); // already Thursday in UTC, still Wednesday 22:10 in São Paulo
      try {
        assert.deepEqual(await slots(saoPaulo, '?date=2025-03-05'), ['22:30', '23:00']);
        assert.deepEqual(await slots(saoPaulo, '?date=2025-03-06'), ['08:00', '09:00']);
      } finally {
        now = new Date('2025-03-05T13:30:00Z');
      }
    });

    test('booked slots are gone; cancelled bookings and other companies’ bookings are not', async () => {
      await insertBooking(database, shop, saoPaulo, new Date('2025-03-19T17:30:00Z')); // 14:30 in São Paulo
      await insertBooking(database, shop, saoPaulo, new Date('2025-03-19T18:00:00Z'), 'cancelled'); // 15:00, cancelled
      await insertBooking(database, shop, newYork, new Date('2025-03-19T12:00:00Z')); // 09:00 São Paulo time, but New York's
      await insertBooking(database, shop, saoPaulo, new Date('2025-03-20T01:00:00Z')); // 22:00 on the 19th in São Paulo, the 20th in UTC
      assert.deepEqual(await slots(saoPaulo, '?date=2025-03-19'), [
        '09:00',
        '10:00',
        '11:00',
        '14:00',
        '15:00',
        '15:30',
        '21:00',
        '21:30',
        '22:30',
        '23:00',
      ]);
      assert.deepEqual(await slots(saoPaulo, '?date=2025-03-20'), ['08:00', '09:00']);
    });

    test('New York: wall times skipped by DST do not exist; bookings are read in the zone’s current offset', async () => {
      assert.deepEqual(await slots(newYork, '?date=2025-03-09'), ['01:00', '01:30', '03:00', '03:30']);
      await insertBooking(database, shop, newYork, new Date('2025-03-16T07:00:00Z')); // 03:00 EDT
      assert.deepEqual(await slots(newYork, '?date=2025-03-16'), ['01:00', '01:30', '02:00', '02:30', '03:30']);
      await insertBooking(database, shop, newYork, new Date('2025-07-02T13:00:00Z')); // 09:00 EDT
      assert.deepEqual(await slots(newYork, '?date=2025-07-02'), ['10:00']);
      assert.deepEqual(await slots(newYork, '?date=2025-11-02'), [
        '01:00',
        '01:30',
        '02:00',
        '02:30',
        '03:00',
        '03:30',
      ]);
    });

    test('an empty list for a past date, a weekday without schedule, or a company without any', async () => {
      assert.deepEqual(await slots(saoPaulo, '?date=2025-03-04'), []);
      assert.deepEqual(await slots(saoPaulo, '?date=2024-03-06'), []);
      assert.deepEqual(await slots(saoPaulo, '?date=2025-03-08'), []);
      assert.deepEqual(await slots(unscheduled, '?date=2025-03-12'), []);
    });

    test('an empty list for a missing or malformed date', async () => {
      for (const query of [
        '',
        '?date=',
        '?date=tomorrow',
        '?date=2025-02-30',
        '?date=12/03/2025',
        '?date=2025-03-12T10:00:00Z',
      ]) {
        assert.deepEqual(await slots(saoPaulo, query), [], query);
      }
    });

    test('an empty list for a missing, malformed or unknown company id', async () => {
      for (const id of ['abc', '0', '-1', '1.5', '99999999', '2147483648', 'undefined']) {
        assert.deepEqual(await slots(id, '?date=2025-03-12'), [], id);
      }
      const missing = await app.inject({ url: '/api/v1/companies//available_schedules?date=2025-03-12' });
      assert.equal(missing.statusCode, 200);
      assert.deepEqual(missing.json(), []);
    });

    test('an unknown query parameter is 422', async () => {
      const res = await app.inject({ url: `/api/v1/companies/${saoPaulo}/available_schedules?date=2025-03-12&tz=UTC` });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().code, 'validation_failed');
    });
  });
}
