import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertCheckoutPage, insertProduct, startRecordsApp, VALID_CPF } from '../support/records-fixtures.ts';

const ALPHA_ORIGIN = { origin: 'https://alpha.example' };

for (const engine of engines()) {
  describe(`Idempotency-Key on POST /customers with create_deal on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let beta: Tenant;
    let alphaPage: string;
    let alphaProduct: number;
    let betaProduct: number;

    const deal = (email: string, extra: Record<string, unknown> = {}) => ({
      email,
      name: 'Maria Silva',
      phone: '11987654321',
      create_deal: true,
      main_product_id: alphaProduct,
      ...extra,
    });
    const post = (key: string | undefined, payload: object, headers: Record<string, string> = bearer(alpha.apiKey)) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: { ...headers, ...(key ? { 'idempotency-key': key } : {}) },
        payload,
      });
    const ordersOf = async (tenant: Tenant) =>
      Number(
        (
          await database.db
            .selectFrom('orders')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', tenant.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const storedKey = (tenant: Tenant, key: string) =>
      database.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', tenant.accountId)
        .where('key', '=', key)
        .executeTakeFirst();

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      alpha = await createTenant(database, { allowedHosts: ['alpha.example'] });
      beta = await createTenant(database, { allowedHosts: ['beta.example'] });
      alphaPage = await insertCheckoutPage(database, alpha, { title: 'Alpha page' });
      alphaProduct = await insertProduct(database, alpha, { name: 'Curso', valueCents: 20_000 });
      betaProduct = await insertProduct(database, beta, { name: 'Outro', valueCents: 5_000 });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('the same key and body replay the first answer, marked as a replay, and create one order', async () => {
      const before = await ordersOf(alpha);
      const first = await post('deal-1', deal('ana@example.com'));
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      assert.equal(typeof first.json().order_id, 'number');
      const second = await post('deal-1', deal('ana@example.com'));
      assert.equal(second.statusCode, 200);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.deepEqual(second.json(), first.json());
      assert.equal(await ordersOf(alpha), before + 1);
    });

    test('the same key with another body gets 422 idempotency_key_reused and creates nothing', async () => {
      assert.equal((await post('deal-2', deal('bia@example.com'))).statusCode, 200);
      const before = await ordersOf(alpha);
      const res = await post('deal-2', deal('bia@example.com', { observation: 'outra' }));
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().code, 'idempotency_key_reused');
      assert.equal(await ordersOf(alpha), before);
    });

    test('a request still in flight under the key gets 409 with Retry-After; a dead holder is taken over', async () => {
      assert.equal((await post('deal-3', deal('carla@example.com'))).statusCode, 200);
      const hold = (lockedUntil: Date) =>
        database.db
          .updateTable('idempotency_keys')
          .set({ status: 'in_flight', response_status: null, response_body: null, locked_until: lockedUntil })
          .where('account_id', '=', alpha.accountId)
          .where('key', '=', 'deal-3')
          .execute();
      await hold(new Date(Date.now() + 60_000));
      const busy = await post('deal-3', deal('carla@example.com'));
      assert.equal(busy.statusCode, 409);
      assert.equal(busy.json().code, 'idempotency_key_in_use');
      assert.equal(busy.headers['retry-after'], '1');
      await hold(new Date(Date.now() - 1_000));
      const takenOver = await post('deal-3', deal('carla@example.com'));
      assert.equal(takenOver.statusCode, 200);
      assert.equal(takenOver.headers['idempotent-replayed'], undefined);
    });

    test('keys are scoped to the account that owns the request: the page owner’s from a browser, the key’s otherwise', async () => {
      const fromPage = await post(
        'shared-deal',
        deal('dani@example.com', { checkout_page_id: alphaPage }),
        ALPHA_ORIGIN,
      );
      assert.equal(fromPage.statusCode, 200, fromPage.body);
      assert.ok(await storedKey(alpha, 'shared-deal'));
      const other = await post(
        'shared-deal',
        deal('dani@example.com', { main_product_id: betaProduct }),
        bearer(beta.apiKey),
      );
      assert.equal(other.statusCode, 200, other.body);
      assert.equal(other.headers['idempotent-replayed'], undefined);
      assert.notEqual(other.json().order_id, fromPage.json().order_id);
      const betaOrder = await database.db
        .selectFrom('orders')
        .select('account_id')
        .where('id', '=', other.json().order_id)
        .executeTakeFirstOrThrow();
      assert.equal(betaOrder.account_id, beta.accountId);
    });

    test('a request refused by the host restriction claims no key: 403, then the allowed request runs under it', async () => {
      const payload = deal('eva@example.com', { checkout_page_id: alphaPage });
      const refused = await post('deal-4', payload, { origin: 'https://evil.example' });
      assert.equal(refused.statusCode, 403);
      assert.equal(await storedKey(alpha, 'deal-4'), undefined);
      const allowed = await post('deal-4', payload, ALPHA_ORIGIN);
      assert.equal(allowed.statusCode, 200);
      assert.equal(allowed.headers['idempotent-replayed'], undefined);
      assert.equal(typeof allowed.json().order_id, 'number');
    });

    test('10 concurrent requests with one key create one order', async () => {
      const before = await ordersOf(alpha);
      const answers = await Promise.all(Array.from({ length: 10 }, () => post('deal-burst', deal('fabi@example.com'))));
      const statuses = answers.map((res) => res.statusCode);
      assert.ok(
        statuses.every((status) => status === 200 || status === 409),
        statuses.join(','),
      );
      for (const busy of answers.filter((res) => res.statusCode === 409))
        assert.equal(busy.headers['retry-after'], '1', busy.body);
      assert.equal(
        answers.filter((res) => res.statusCode === 200 && res.headers['idempotent-replayed'] === undefined).length,
        1,
      );
      assert.equal(await ordersOf(alpha), before + 1);
    });

    test('the same key and body from a browser after the API key is another request: 422, never the merchant’s view of the customer', async () => {
      const email = 'iris@example.com';
      const stored = await post(undefined, {
        email,
        name: 'Iris',
        phone: '11987654321',
        identification: VALID_CPF,
        street: 'Rua Reservada',
        meta: { note: 'merchant only' },
      });
      assert.equal(stored.statusCode, 200, stored.body);
      const payload = deal(email, { checkout_page_id: alphaPage });
      const merchant = await post('deal-iris', payload);
      assert.equal(merchant.statusCode, 200, merchant.body);
      assert.equal(merchant.json().identification, VALID_CPF);
      const browser = await post('deal-iris', payload, ALPHA_ORIGIN);
      assert.equal(browser.statusCode, 422, browser.body);
      assert.equal(browser.json().code, 'idempotency_key_reused');
      assert.equal(browser.headers['idempotent-replayed'], undefined);
      assert.doesNotMatch(browser.body, new RegExp(`${VALID_CPF}|Reservada|merchant only`));
    });

    test('the same key and body sent to another company’s host is another request: 422, not the first company’s answer', async () => {
      const slug = `second-${alpha.slug}`;
      await database.db
        .insertInto('companies')
        .values({ account_id: alpha.accountId, name: 'Second company', slug, is_primary: false })
        .execute();
      const payload = { email: 'joao@example.com', name: 'Joao', phone: '11987654321', create_deal: true };
      const first = await post('deal-hosts', payload, {
        host: `${alpha.slug}.pay.test`,
        origin: `http://${alpha.slug}.pay.test`,
      });
      assert.equal(first.statusCode, 200, first.body);
      const second = await post('deal-hosts', payload, { host: `${slug}.pay.test`, origin: `http://${slug}.pay.test` });
      assert.equal(second.statusCode, 422, second.body);
      assert.equal(second.json().code, 'idempotency_key_reused');
    });

    test('without create_deal the upsert ignores the key (it creates no order and is idempotent by email)', async () => {
      const plain = { email: 'gabi@example.com', name: 'Gabi', phone: '11987654321' };
      // Not even its shape is checked: the route takes no key for this request.
      assert.equal((await post('not a key', plain)).statusCode, 200);
      const first = await post('plain-1', plain);
      const second = await post('plain-1', { ...plain, name: 'Gabriela' });
      assert.equal(first.statusCode, 200);
      assert.equal(second.statusCode, 200);
      assert.equal(second.headers['idempotent-replayed'], undefined);
      assert.equal(second.json().id, first.json().id);
      assert.equal(second.json().name, 'Gabriela');
      assert.equal(await storedKey(alpha, 'plain-1'), undefined);
    });

    test('a malformed key is refused', async () => {
      const res = await post('bad key', deal('hana@example.com'));
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().code, 'validation_failed');
    });
  });
}
