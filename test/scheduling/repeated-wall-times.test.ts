import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { isBookableSlot } from '../../src/modules/scheduling/scheduling.service.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { insertCompany, insertSchedule, startAppAt } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';

const THU = 4;
// Cairo sets its clocks back at midnight ending Thursday 2027-10-28: 23:00 happens at +03:00 and again at +02:00.
const FIRST_2300 = new Date('2027-10-28T20:00:00Z');
const SECOND_2300 = new Date('2027-10-28T21:00:00Z');

/** docs/catalog.md: a wall time that occurs twice means its first occurrence, in zones east of UTC as well. */
for (const engine of engines()) {
  describe(`repeated wall times east of UTC on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let cairo: number;
    let now = new Date('2027-10-01T00:00:00Z');

    before(async () => {
      database = await engine.open();
      app = await startAppAt(database, () => now);
      shop = await createTenant(database);
      cairo = await insertCompany(database, shop, { time_zone: 'Africa/Cairo' });
      await insertSchedule(database, shop, cairo, THU, '21:00', '24:00', 60);
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    const slotsOn = async (date: string) =>
      (await app.inject({ url: `/api/v1/companies/${cairo}/available_schedules?date=${date}` })).json() as string[];

    test('the first 23:00 is the bookable slot, the second is not', async () => {
      now = new Date('2027-10-01T00:00:00Z');
      assert.equal(await isBookableSlot(database.db, cairo, FIRST_2300, now), true);
      assert.equal(await isBookableSlot(database.db, cairo, SECOND_2300, now), false);
      assert.deepEqual(await slotsOn('2027-10-28'), ['21:00', '22:00', '23:00']);
    });

    test('once the first 23:00 has passed, the slot is no longer listed or bookable', async () => {
      now = new Date(FIRST_2300.getTime() + 30 * 60_000); // 23:30 at +03:00, half an hour before the second 23:00
      assert.deepEqual(await slotsOn('2027-10-28'), []);
      assert.equal(await isBookableSlot(database.db, cairo, SECOND_2300, now), false);
    });
  });
}
