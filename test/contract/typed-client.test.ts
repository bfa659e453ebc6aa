import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createCheckoutClient, type CheckoutClient } from '../../packages/client/index.ts';
import type { Database } from '../../src/db/database.ts';
import { createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertProduct } from '../support/catalog-fixtures.ts';

for (const engine of engines()) {
  describe(`the typed client (packages/client) against the running app on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let checkout: CheckoutClient;
    let product: number;

    before(async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      const address = await app.listen({ host: '127.0.0.1', port: 0 });
      shop = await createTenant(database);
      product = await insertProduct(database, shop, { name: 'Curso', value_cents: 19_990 });
      checkout = createCheckoutClient(address, { apiKey: shop.apiKey });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('creates an order, lists it and reads its charge, every field typed and present', async () => {
      const created = await checkout.POST('/orders', {
        body: {
          customer: { email: 'cliente@example.com', name: 'Cliente' },
          items: [{ product_id: product, quantity: 2 }],
          date: '2030-01-15',
        },
      });
      assert.equal(created.response.status, 201, JSON.stringify(created.error));
      const order = created.data!;
      assert.equal(order.total, 399.8);
      // Unset fields are null, never missing: a typed client reads them without a presence check.
      assert.equal(order.coupon_code, null);
      assert.equal(order.seller, null);
      assert.deepEqual(
        order.items.map((item) => [item.product_id, item.interval, item.cycle]),
        [[product, null, null]],
      );

      const listed = await checkout.GET('/orders', { params: { query: { q: String(order.id) } } });
      assert.equal(listed.response.status, 200);
      assert.deepEqual(
        listed.data!.data.map((row) => row.uid),
        [order.uid],
      );
      assert.equal(listed.data!.meta.total_count, 1);

      const charge = await checkout.GET('/charges/{id}', { params: { path: { id: order.uid } } });
      assert.equal(charge.response.status, 200, JSON.stringify(charge.error));
      assert.equal(charge.data!.due_date, '2030-01-15');
      assert.equal(charge.data!.logo, null);
      assert.deepEqual(
        charge.data!.products.map((item) => [item.id, item.quantity, item.value]),
        [[product, 2, 199.9]],
      );
    });

    test('an error answer is the documented error body', async () => {
      const missing = await checkout.GET('/orders/{id}', { params: { path: { id: 2_000_000_000 } } });
      assert.equal(missing.response.status, 404);
      assert.equal(missing.data, undefined);
      assert.equal(missing.error!.code, 'not_found');
      const anonymous = createCheckoutClient(`${listeningUrl(app)}/api/v1/`);
      const refused = await anonymous.GET('/orders', {});
      assert.equal(refused.response.status, 401);
      assert.equal(refused.error!.code, 'authentication_required');
    });
  });
}

function listeningUrl(app: FastifyInstance): string {
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  return `http://127.0.0.1:${address.port}`;
}
