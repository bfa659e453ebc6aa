import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertCartPage, insertCheckoutPage, insertProduct, startRecordsApp } from '../support/records-fixtures.ts';

const ORIGIN = { origin: 'https://alpha.example' };

for (const engine of engines()) {
  describe(`unknown query parameters and URL fields on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let product: number;
    let checkoutPage: string;
    let cartPage: string;

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      alpha = await createTenant(database, { allowedHosts: ['alpha.example'] });
      product = await insertProduct(database, alpha, { name: 'Livro', valueCents: 5_000 });
      checkoutPage = await insertCheckoutPage(database, alpha, { title: 'Página' });
      cartPage = await insertCartPage(database, alpha);
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    const createCart = (item: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: `/api/v1/carts/${cartPage}`,
        headers: bearer(alpha.apiKey),
        payload: { payment_method: 'pix', items: [item] },
      });

    test('the show routes refuse an unknown query parameter with 422, as the list routes do', async () => {
      const cart = await createCart({ name: 'Avulso', value: 10 });
      assert.equal(cart.statusCode, 201, cart.body);
      const routes: Array<[string, Record<string, string>]> = [
        [`/api/v1/products/${product}`, ORIGIN],
        [`/api/v1/products/${product}/gateway_a_public_key`, ORIGIN],
        [`/api/v1/checkout_pages/${checkoutPage}`, bearer(alpha.apiKey)],
        [`/api/v1/carts/${cart.json().id}`, ORIGIN],
      ];
      for (const [url, headers] of routes) {
        const typo = await app.inject({ url: `${url}?deleted=true`, headers });
        assert.equal(typo.statusCode, 422, `${url}: ${typo.body}`);
        assert.equal(typo.json().code, 'validation_failed');
      }
      assert.equal((await app.inject({ url: `/api/v1/products/${product}`, headers: ORIGIN })).statusCode, 200);
    });

    test('a list of more than 100 ids is refused for its length, not as "not an array"', async () => {
      const query = Array.from({ length: 101 }, (_, i) => `product_ids[]=${i + 1}`).join('&');
      const res = await app.inject({ url: `/api/v1/checkout_pages?${query}`, headers: bearer(alpha.apiKey) });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.body, /more than 100 items/);
    });

    test('a meta key over 100 characters is refused (cart, customer); 100 are accepted', async () => {
      const cart = (meta: Record<string, unknown>) =>
        app.inject({
          method: 'POST',
          url: `/api/v1/carts/${cartPage}`,
          headers: bearer(alpha.apiKey),
          payload: { payment_method: 'pix', items: [{ name: 'Avulso', value: 10 }], meta },
        });
      assert.equal((await cart({ ['k'.repeat(101)]: 1 })).statusCode, 422);
      assert.equal((await cart({ ['k'.repeat(100)]: 1 })).statusCode, 201);
      const customer = (meta: Record<string, string>) =>
        app.inject({
          method: 'POST',
          url: '/api/v1/customers',
          headers: bearer(alpha.apiKey),
          payload: { email: 'meta@example.com', name: 'Meta', phone: '11987654321', meta },
        });
      const long = await customer({ ['k'.repeat(101)]: 'v' });
      assert.equal(long.statusCode, 422, long.body);
      assert.equal((await customer({ ['k'.repeat(100)]: 'v' })).statusCode, 200);
    });

    test('URLs a page renders or an integrator may link must be http(s): a cart item image, a customer’s source url', async () => {
      for (const image of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'file:///etc/passwd', 'http://']) {
        const refused = await createCart({ name: 'Avulso', value: 10, image });
        assert.equal(refused.statusCode, 422, `${image}: ${refused.body}`);
      }
      assert.equal(
        (await createCart({ name: 'Avulso', value: 10, image: 'https://cdn.example/a.png' })).statusCode,
        201,
      );
      const customer = (url: string) =>
        app.inject({
          method: 'POST',
          url: '/api/v1/customers',
          headers: bearer(alpha.apiKey),
          payload: { email: 'url@example.com', name: 'Url', phone: '11987654321', url },
        });
      assert.equal((await customer('javascript:alert(1)')).statusCode, 422);
      assert.equal((await customer('https://landing.example/oferta')).statusCode, 200);
    });
  });
}
