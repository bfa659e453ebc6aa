import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertProduct } from '../support/records-fixtures.ts';

for (const engine of engines()) {
  describe(`Idempotency-Key on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;
    let productId: number;
    const orderBody = (email: string) => ({
      customer: { email, name: 'Ana Souza' },
      items: [{ product_id: productId, quantity: 1 }],
    });
    const createOrder = (tenant: Tenant, key: string | undefined, body: object) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        headers: { ...bearer(tenant.apiKey), ...(key ? { 'idempotency-key': key } : {}) },
        payload: body,
      });
    const orderCount = async (tenant: Tenant) =>
      Number(
        (
          await database.db
            .selectFrom('orders')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', tenant.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );

    before(async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      shop = await createTenant(database);
      other = await createTenant(database);
      productId = await insertProduct(database, shop, { valueCents: 5000 });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('the same key and body replay the first answer, marked as a replay, and create once', async () => {
      const before = await orderCount(shop);
      const first = await createOrder(shop, 'order-key-1', orderBody('ana@example.com'));
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const second = await createOrder(shop, 'order-key-1', orderBody('ana@example.com'));
      assert.equal(second.statusCode, 201);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.deepEqual(second.json(), first.json());
      assert.equal(await orderCount(shop), before + 1);
    });

    test('the same body with its fields in another order is the same request: replayed, not refused', async () => {
      const body = orderBody('dora@example.com') as Record<string, unknown>;
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      assert.notEqual(JSON.stringify(reordered), JSON.stringify(body));
      const first = await createOrder(shop, 'order-key-order', body);
      assert.equal(first.statusCode, 201, first.body);
      const second = await createOrder(shop, 'order-key-order', reordered);
      assert.equal(second.statusCode, 201, second.body);
      assert.equal(second.headers['idempotent-replayed'], 'true');
    });

    test('the same key with another body gets 422 idempotency_key_reused', async () => {
      await createOrder(shop, 'order-key-2', orderBody('bia@example.com'));
      const res = await createOrder(shop, 'order-key-2', orderBody('carla@example.com'));
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().code, 'idempotency_key_reused');
    });

    test('keys are scoped to the account: another account may use the same key', async () => {
      const productOfOther = await insertProduct(database, other, { valueCents: 100 });
      await createOrder(shop, 'shared-key', orderBody('dani@example.com'));
      const res = await createOrder(other, 'shared-key', {
        customer: { email: 'x@example.com', name: 'X' },
        items: [{ product_id: productOfOther }],
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    });

    test('a malformed key is refused', async () => {
      const res = await createOrder(shop, 'bad key with spaces', orderBody('eva@example.com'));
      assert.equal(res.statusCode, 422);
    });

    test('20 concurrent requests with one key create one order', async () => {
      const before = await orderCount(shop);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => createOrder(shop, 'burst-key', orderBody('fabi@example.com'))),
      );
      const statuses = answers.map((res) => res.statusCode);
      assert.ok(
        statuses.every((status) => status === 201 || status === 409),
        statuses.join(','),
      );
      assert.equal(
        answers.filter((res) => res.statusCode === 201 && res.headers['idempotent-replayed'] === undefined).length,
        1,
      );
      assert.equal(await orderCount(shop), before + 1);
      const replay = await createOrder(shop, 'burst-key', orderBody('fabi@example.com'));
      assert.equal(replay.headers['idempotent-replayed'], 'true');
    });

    test('a request still in flight under the key gets 409 with Retry-After; a dead holder is taken over', async () => {
      const first = await createOrder(shop, 'held-key', orderBody('gabi@example.com'));
      assert.equal(first.statusCode, 201);
      // Put the record back in flight, as while the first request is still running.
      const hold = (lockedUntil: Date) =>
        database.db
          .updateTable('idempotency_keys')
          .set({ status: 'in_flight', response_status: null, response_body: null, locked_until: lockedUntil })
          .where('account_id', '=', shop.accountId)
          .where('key', '=', 'held-key')
          .execute();
      await hold(new Date(Date.now() + 60_000));
      const busy = await createOrder(shop, 'held-key', orderBody('gabi@example.com'));
      assert.equal(busy.statusCode, 409);
      assert.equal(busy.json().code, 'idempotency_key_in_use');
      assert.equal(busy.headers['retry-after'], '1');
      await hold(new Date(Date.now() - 1_000));
      const takenOver = await createOrder(shop, 'held-key', orderBody('gabi@example.com'));
      assert.equal(takenOver.statusCode, 201);
      assert.equal(takenOver.headers['idempotent-replayed'], undefined);
    });
  });
}
