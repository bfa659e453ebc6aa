import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import { insertProduct } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';
import { insertOrder, startRecordsApp } from '../support/records-fixtures.ts';

const ORIGIN = { origin: 'https://alpha.example' };

for (const engine of engines()) {
  describe(`ChargeShow products describe a product as GET /products/{id} does, on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      alpha = await createTenant(database, { allowedHosts: ['alpha.example'] });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('description, else short description, else ""; an item naming no product has none', async () => {
      const both = await insertProduct(database, alpha, {
        name: 'Both',
        description: 'Longa',
        short_description: 'Curta',
      });
      const shortOnly = await insertProduct(database, alpha, { name: 'Short', short_description: 'Só a curta' });
      const neither = await insertProduct(database, alpha, { name: 'Neither' });
      const charge = await insertOrder(database, alpha, {
        date: '2024-05-01',
        due_date: '2024-05-08',
        items: [
          { productId: both, name: 'Both', unitCents: 100 },
          { productId: shortOnly, name: 'Short', unitCents: 100 },
          { productId: neither, name: 'Neither', unitCents: 100 },
          { name: 'Avulso', unitCents: 100 },
        ],
      });
      const res = await app.inject({ url: `/api/v1/charges/${charge.uid}`, headers: ORIGIN });
      assert.equal(res.statusCode, 200, res.body);
      const products: Array<{ id: number | null; name: string; description: string | null }> = res.json().products;
      assert.deepEqual(
        products.map((item) => [item.name, item.description]),
        [
          ['Both', 'Longa'],
          ['Short', 'Só a curta'],
          ['Neither', ''],
          ['Avulso', null],
        ],
      );
      assert.equal(products[3]!.id, null);
      for (const item of products.slice(0, 3)) {
        const shown = (await app.inject({ url: `/api/v1/products/${item.id}`, headers: ORIGIN })).json();
        assert.equal(item.description, shown.description, item.name);
      }
    });
  });
}
