import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertCustomer, insertOrder, startRecordsApp } from '../support/records-fixtures.ts';

for (const engine of engines()) {
  describe(`GET /orders with an empty q on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    const listedIds = async (query: string) => {
      const res = await app.inject({ url: `/api/v1/orders${query}`, headers: bearer(shop.apiKey) });
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
      return res.json().data.map((order: { id: number }) => order.id);
    };

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      shop = await createTenant(database);
      const maria = await insertCustomer(database, shop, { name: 'Maria', email: 'maria@shop.example' });
      await insertOrder(database, shop, { customer_id: maria, created_at: new Date('2024-03-01T12:00:00Z') });
      await insertOrder(database, shop, { created_at: new Date('2024-03-02T12:00:00Z') });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('an empty or blank q is no filter, as on the other lists', async () => {
      const all = await listedIds('');
      assert.equal(all.length, 2);
      assert.deepEqual(await listedIds('?q='), all);
      assert.deepEqual(await listedIds('?q=%20'), all);
      assert.equal((await listedIds('?q=maria')).length, 1);
    });

    test('a q over 200 characters is still refused', async () => {
      const res = await app.inject({ url: `/api/v1/orders?q=${'a'.repeat(201)}`, headers: bearer(shop.apiKey) });
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().details[0].field, 'querystring/q');
    });
  });
}
