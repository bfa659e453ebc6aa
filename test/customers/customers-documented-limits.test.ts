import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertProduct, startRecordsApp, VALID_CNPJ, VALID_CPF } from '../support/records-fixtures.ts';

// The behaviour docs/orders.md (POST /customers) describes for identification and create_deal's scheduled_at.
for (const engine of engines()) {
  describe(`POST /customers documented limits on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let product: number;
    let n = 0;
    const email = () => `limits${++n}@example.com`;
    const post = (payload: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/customers',
        headers: bearer(shop.apiKey),
        payload: { name: 'Maria Silva', phone: '11987654321', ...payload },
      });
    const saved = async (address: string) =>
      (await database.db.selectFrom('customers').select('id').where('email', '=', address).execute()).length;

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      shop = await createTenant(database);
      product = await insertProduct(database, shop, { name: 'Curso' });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('identification: punctuation is stripped within 14 characters; a formatted CNPJ (18) is a 422, its 14 characters are accepted', async () => {
      const formattedCpf = await post({ email: email(), identification: '529.982.247-25' });
      assert.equal(formattedCpf.statusCode, 200, formattedCpf.body);
      assert.equal(formattedCpf.json().identification, VALID_CPF);

      const address = email();
      const formattedCnpj = await post({ email: address, identification: '11.222.333/0001-81' });
      assert.equal(formattedCnpj.statusCode, 422);
      assert.deepEqual(
        formattedCnpj.json().details.map((d: { field: string }) => d.field),
        ['body/identification'],
      );
      assert.equal(await saved(address), 0);

      const bareCnpj = await post({ email: email(), identification: VALID_CNPJ });
      assert.equal(bareCnpj.statusCode, 200, bareCnpj.body);
      assert.equal(bareCnpj.json().identification, VALID_CNPJ);
    });

    test('create_deal with a scheduled_at outside the date range is a 422 before the customer is saved', async () => {
      const address = email();
      const res = await post({
        email: address,
        create_deal: true,
        main_product_id: product,
        scheduled_at: '1800-01-01T10:00:00Z',
      });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().code, 'validation_failed');
      assert.deepEqual(
        res.json().details.map((d: { field: string }) => d.field),
        ['body/scheduled_at'],
      );
      assert.equal(await saved(address), 0);
    });
  });
}
