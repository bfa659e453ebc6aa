import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { as, userSignedIn, type SignedInUser } from './support.ts';

const BASE = '/api/v1/dashboard';
const DELIVERIES = 45;

/** `count` deliveries of one endpoint; every third shares its created_at with the one before, to the microsecond. */
async function insertDeliveries(database: Database, tenant: Tenant, endpointId: string, prefix: string, count: number) {
  const base = Date.parse('2026-03-01T12:00:00.123Z');
  for (let n = 0; n < count; n += 1) {
    const at = new Date(base + (n - (n % 3 === 2 ? 1 : 0)) * 1000);
    const eventId = `evt_${prefix}_${String(n).padStart(3, '0')}`;
    await database.db
      .insertInto('notification_events')
      .values({ id: eventId, account_id: tenant.accountId, type: 'order.paid', data: '{}', created_at: at })
      .execute();
    await database.db
      .insertInto('notification_deliveries')
      .values({
        id: `dlv_${prefix}_${String(n).padStart(3, '0')}`,
        account_id: tenant.accountId,
        event_id: eventId,
        endpoint_id: endpointId,
        max_attempts: 15,
        created_at: at,
      })
      .execute();
  }
}

for (const engine of engines()) {
  describe(`an endpoint's deliveries page by cursor on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let app: FastifyInstance;
    let owner: SignedInUser;
    let endpointId: string;
    let otherEndpointId: string;
    const get = (url: string) => app.inject({ method: 'GET', url: `${BASE}${url}`, headers: as(owner) });

    test('setup', async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      const shop = await createTenant(database);
      owner = await userSignedIn(app, database, shop, 'owner');
      const create = async (url: string) => {
        const res = await app.inject({
          method: 'POST',
          url: `${BASE}/notification_endpoints`,
          headers: as(owner),
          payload: { url },
        });
        assert.equal(res.statusCode, 201, res.body);
        return res.json().endpoint.id as string;
      };
      endpointId = await create('http://127.0.0.1:9/a');
      otherEndpointId = await create('http://127.0.0.1:9/b');
      await insertDeliveries(database, shop, endpointId, 'a', DELIVERIES);
      await insertDeliveries(database, shop, otherEndpointId, 'b', 3);
    });

    test('pages of 20 after each cursor give every delivery once, newest first, and end with has_more false', async () => {
      const seen: string[] = [];
      const pages: number[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(
          `/notification_endpoints/${endpointId}/deliveries${cursor ? `?starting_after=${cursor}` : ''}`,
        );
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json() as {
          meta: { has_more: boolean; next_cursor: string | null };
          data: Array<{ id: string }>;
        };
        pages.push(body.data.length);
        seen.push(...body.data.map((delivery) => delivery.id));
        assert.equal(body.meta.next_cursor, body.meta.has_more ? body.data.at(-1)!.id : null);
        cursor = body.meta.next_cursor;
      } while (cursor);
      assert.deepEqual(pages, [20, 20, 5]);
      const stored = await database.db
        .selectFrom('notification_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpointId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      assert.deepEqual(
        seen,
        stored.map((row) => row.id),
      );
      assert.equal(new Set(seen).size, DELIVERIES);
    });

    test('a cursor that is not a delivery of this endpoint is a 422 naming the parameter', async () => {
      for (const cursor of ['dlv_unknown', 'dlv_b_001']) {
        const res = await get(`/notification_endpoints/${endpointId}/deliveries?starting_after=${cursor}`);
        assert.equal(res.statusCode, 422, res.body);
        assert.equal(res.json().details[0].field, 'querystring/starting_after');
      }
      await app.close();
      await database.close();
    });
  });
}
