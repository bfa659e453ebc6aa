import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { clampToRange, instantInRange, isDateInRange } from '../../src/http/date-range.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { insertSchedule } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';
import { insertProduct, startRecordsApp } from '../support/records-fixtures.ts';

const NOW = new Date('2024-03-10T15:00:00Z');
const PERIOD_FIELDS = ['created_at', 'paid_at', 'date', 'due_date', 'scheduled_at'];
const FRIDAY = 5; // 9999-12-31 is a Friday

describe('the shared date-range check', () => {
  test('calendar dates from 1900-01-01 to 9999-12-31 that exist', () => {
    for (const text of ['1900-01-01', '2024-02-29', '2000-02-29', '9999-12-31'])
      assert.equal(isDateInRange(text), true, text);
    for (const text of [
      '0000-01-01',
      '0050-06-01',
      '1899-12-31',
      '1900-02-29',
      '2023-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-1-01',
      '10000-01-01',
      '',
    ]) {
      assert.equal(isDateInRange(text), false, text);
    }
  });

  test('instants in UTC within the range, with Z or ±HH:MM, without second 60', () => {
    assert.equal(instantInRange('2024-03-10T12:00:00-03:00')?.toISOString(), '2024-03-10T15:00:00.000Z');
    assert.equal(instantInRange('9999-12-31T23:59:59.999Z')?.toISOString(), '9999-12-31T23:59:59.999Z');
    for (const text of [
      '2024-12-31T23:59:60Z',
      '1900-01-01T00:00:00+00:01',
      '9999-12-31T21:00:00-03:00',
      '2024-03-10T12:00:00+03',
      '2024-03-10',
      'now',
    ]) {
      assert.equal(instantInRange(text), undefined, text);
    }
    assert.equal(clampToRange(new Date(Date.UTC(10000, 0, 2))).toISOString(), '9999-12-31T23:59:59.999Z');
  });
});

for (const engine of engines()) {
  describe(`dates at and beyond the accepted range on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let product: number;
    let n = 0;
    const email = () => `dates${++n}@example.com`;
    const post = (payload: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: '/api/v1/orders', headers: bearer(alpha.apiKey), payload });
    const list = (query: string) => app.inject({ url: `/api/v1/orders?${query}`, headers: bearer(alpha.apiKey) });
    const orderCount = async () =>
      (await database.db.selectFrom('orders').select('id').where('account_id', '=', alpha.accountId).execute()).length;

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database, { clock: () => NOW }));
      alpha = await createTenant(database);
      product = await insertProduct(database, alpha, { valueCents: 4_990 });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('GET /orders: year 0000 or a date before 1900 in either bound is a 422 naming the field, for every period field', async () => {
      for (const field of PERIOD_FIELDS) {
        for (const [query, name] of [
          ['initial_date=0000-01-01', 'initial_date'],
          ['final_date=0000-12-31', 'final_date'],
          ['initial_date=1899-12-31', 'initial_date'],
        ] as const) {
          const res = await list(`${query}&period_date_filter=${field}`);
          assert.equal(res.statusCode, 422, `${field} ${query}: ${res.body}`);
          assert.equal(res.json().code, 'validation_failed');
          assert.equal(res.json().details[0].field, `querystring/${name}`);
        }
      }
    });

    test('GET /orders: the first and last dates of the range answer 200 for every period field', async () => {
      const created = await post({
        customer: { email: email() },
        items: [{ product_id: product }],
        scheduled_at: '2024-03-20T13:00:00Z',
      });
      assert.equal(created.statusCode, 201, created.body);
      for (const field of PERIOD_FIELDS) {
        const res = await list(`initial_date=1900-01-01&final_date=9999-12-31&period_date_filter=${field}`);
        assert.equal(res.statusCode, 200, `${field}: ${res.body}`);
        if (field !== 'paid_at')
          assert.ok(
            res.json().data.some((order: { id: number }) => order.id === created.json().id),
            field,
          );
      }
    });

    test('POST /orders: year 0000, a date or instant (in UTC) outside 1900–9999, a leap second or an hour-only offset is a 422; nothing is stored', async () => {
      const before = await orderCount();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ date: '0000-01-01' }, 'body/date'],
        [{ date: '1899-12-31' }, 'body/date'],
        [{ scheduled_at: '0000-01-01T00:00:00Z' }, 'body/scheduled_at'],
        [{ scheduled_at: '1900-01-01T00:30:00+01:00' }, 'body/scheduled_at'],
        [{ scheduled_at: '9999-12-31T23:00:00-05:00' }, 'body/scheduled_at'],
        [{ scheduled_at: '2024-12-31T23:59:60Z' }, 'body/scheduled_at'],
        [{ scheduled_at: '2024-06-30T20:59:60-03:00' }, 'body/scheduled_at'],
        [{ scheduled_at: '2024-12-31T10:00:00+03' }, 'body/scheduled_at'],
        [
          { payments: [{ gateway: 'x', amount: 49.9, type: 'pix', paid_at: '2024-12-31T23:59:60Z' }] },
          'body/payments/0/paid_at',
        ],
        [
          { payments: [{ gateway: 'x', amount: 49.9, type: 'pix', paid_at: '0000-06-01T00:00:00Z' }] },
          'body/payments/0/paid_at',
        ],
      ];
      for (const [extra, field] of cases) {
        const res = await post({ customer: { email: email() }, items: [{ product_id: product }], ...extra });
        assert.equal(res.statusCode, 422, `${JSON.stringify(extra)}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(
          res.json().details.some((d: { field: string }) => d.field === field),
          `${JSON.stringify(extra)}: ${res.body}`,
        );
      }
      assert.equal(await orderCount(), before);
    });

    test('POST /orders: the edges of the range are stored and read back', async () => {
      const res = await post({
        customer: { email: email() },
        items: [{ product_id: product }],
        date: '1900-01-01',
        scheduled_at: '9999-12-31T23:59:59Z',
        payments: [{ gateway: 'x', amount: 49.9, type: 'pix', paid_at: '1900-01-01T00:00:00Z' }],
      });
      assert.equal(res.statusCode, 201, res.body);
      const shown = await app.inject({ url: `/api/v1/orders/${res.json().id}`, headers: bearer(alpha.apiKey) });
      assert.equal(shown.statusCode, 200, shown.body);
      assert.deepEqual(
        [shown.json().date, shown.json().due_date, shown.json().scheduled_at],
        ['1900-01-01', '1900-01-01', '9999-12-31T23:59:59.000Z'],
      );
      assert.equal(shown.json().payments[0].paid_at, '1900-01-01T00:00:00.000Z');
    });

    test('available_schedules: the last days of year 9999 answer 200; slots past it in UTC are left out', async () => {
      // 21:00 and 22:00 on 9999-12-31 in São Paulo are already year 10000 in UTC.
      await insertSchedule(database, alpha, alpha.companyId, FRIDAY, '09:00', '12:00', 60);
      await insertSchedule(database, alpha, alpha.companyId, FRIDAY, '20:00', '23:00', 60);
      const slots = async (date: string) => {
        const res = await app.inject({ url: `/api/v1/companies/${alpha.companyId}/available_schedules?date=${date}` });
        assert.equal(res.statusCode, 200, `${date}: ${res.body}`);
        return res.json();
      };
      assert.deepEqual(await slots('9999-12-31'), ['09:00', '10:00', '11:00', '20:00']);
      assert.deepEqual(await slots('9999-12-30'), []);
      assert.deepEqual(await slots('0000-01-01'), []);
      assert.deepEqual(await slots('10000-01-01'), []);
    });
  });
}
