import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { billingInterval } from '../../src/modules/catalog/checkout-pages.service.ts';
import { bearer, createTenant, startTestApp, type Tenant } from '../support/app.ts';
import {
  addPageProduct,
  insertCheckoutPage,
  insertGateway,
  insertPaymentPlan,
  insertProduct,
} from '../support/catalog-fixtures.ts';
import { documentedJson } from '../support/documented-response.ts';
import { engines } from '../support/engines.ts';

describe('billing interval names', () => {
  test('one period is an adverb, common month multiples have names, the rest is spelled out', () => {
    assert.equal(billingInterval('month', 1), 'monthly');
    assert.equal(billingInterval('year', 1), 'yearly');
    assert.equal(billingInterval('week', 1), 'weekly');
    assert.equal(billingInterval('day', 1), 'daily');
    assert.equal(billingInterval('month', 3), 'quarterly');
    assert.equal(billingInterval('month', 6), 'semiannually');
    assert.equal(billingInterval('day', 10), 'every_10_days');
    assert.equal(billingInterval('year', 2), 'every_2_years');
  });
});

const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: string }>).map((page) => page.id);

for (const engine of engines()) {
  describe(`checkout pages on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;
    // Pages: plain (ebook), club (subscription), empty, ghost (only a deleted product), deleted.
    let ebook: number;
    let club: number;
    let ghostProduct: number;
    let plainPage: string;
    let clubPage: string;
    let emptyPage: string;
    let ghostPage: string;
    let deletedPage: string;

    before(async () => {
      database = await engine.open();
      ({ app } = await startTestApp(database));
      shop = await createTenant(database);
      other = await createTenant(database);
      await insertGateway(database, shop, 'gateway_a', 'pk_a');
      await insertGateway(database, shop, 'gateway_b', 'pk_b_off', { enabled: false });
      ebook = await insertProduct(database, shop, { name: 'E-book Finanças', value_cents: 4990 });
      club = await insertProduct(database, shop, { name: 'Clube Mensal', subscription: true, interval: 'month' });
      ghostProduct = await insertProduct(database, shop, {
        name: 'Espectro',
        subscription: true,
        interval: 'month',
        deleted_at: new Date(),
      });
      const t0 = Date.now() - 60_000;
      plainPage = await insertCheckoutPage(database, shop, {
        page_title: 'Página do E-book',
        enable_coupons: true,
        main_color: '#112233',
        created_at: new Date(t0),
      });
      clubPage = await insertCheckoutPage(database, shop, {
        page_title: 'Assinatura',
        gateway: 'gateway_b',
        created_at: new Date(t0 + 1000),
      });
      emptyPage = await insertCheckoutPage(database, shop, { page_title: 'Vazia', created_at: new Date(t0 + 2000) });
      ghostPage = await insertCheckoutPage(database, shop, {
        page_title: 'Só fantasma',
        created_at: new Date(t0 + 3000),
      });
      deletedPage = await insertCheckoutPage(database, shop, {
        page_title: 'Apagada',
        deleted_at: new Date(),
        created_at: new Date(t0 + 4000),
      });
      await addPageProduct(database, shop, plainPage, ebook);
      await addPageProduct(database, shop, clubPage, club);
      await addPageProduct(database, shop, clubPage, ebook, { position: 1 });
      await addPageProduct(database, shop, ghostPage, ghostProduct);
      await addPageProduct(database, shop, deletedPage, ebook);
      const foreignProduct = await insertProduct(database, other, { name: 'E-book alheio' });
      const foreignPage = await insertCheckoutPage(database, other, { page_title: 'Página alheia' });
      await addPageProduct(database, other, foreignPage, foreignProduct);
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    const list = (query: string, key = shop.apiKey) =>
      app.inject({ url: `/api/v1/checkout_pages${query}`, headers: bearer(key) });

    describe('GET /checkout_pages', () => {
      test('every summary field of the live pages, oldest first', async () => {
        const res = await list('');
        assert.equal(res.statusCode, 200);
        const base = { currency: 'BRL', company_id: shop.companyId, main_color: '#1a73e8', enable_coupons: false };
        assert.deepEqual(res.json(), [
          {
            ...base,
            id: plainPage,
            page_title: 'Página do E-book',
            main_color: '#112233',
            gateway: 'gateway_a',
            public_key: 'pk_a',
            subscription: false,
            enable_coupons: true,
          },
          // A disabled gateway integration lends no public key.
          { ...base, id: clubPage, page_title: 'Assinatura', gateway: 'gateway_b', public_key: '', subscription: true },
          {
            ...base,
            id: emptyPage,
            page_title: 'Vazia',
            gateway: 'gateway_a',
            public_key: 'pk_a',
            subscription: false,
          },
          // A deleted subscription product no longer makes its page a subscription page.
          {
            ...base,
            id: ghostPage,
            page_title: 'Só fantasma',
            gateway: 'gateway_a',
            public_key: 'pk_a',
            subscription: false,
          },
        ]);
      });

      test('q matches the title or a live product name, case-insensitively', async () => {
        assert.deepEqual(ids(await list('?q=assinatura')), [clubPage]);
        assert.deepEqual(ids(await list('?q=e-book')), [plainPage, clubPage]);
        assert.deepEqual(ids(await list('?q=espectro')), []);
        assert.deepEqual(ids(await list('?q=S%C3%B3%20fant')), [ghostPage]);
      });

      test('has_products counts live products only', async () => {
        assert.deepEqual(ids(await list('?has_products=true')), [plainPage, clubPage]);
        assert.deepEqual(ids(await list('?has_products=false')), [emptyPage, ghostPage]);
      });

      test('product_ids[] keeps pages with any of them', async () => {
        assert.deepEqual(ids(await list(`?product_ids[]=${club}`)), [clubPage]);
        assert.deepEqual(ids(await list(`?product_ids[]=${club}&product_ids[]=${ebook}`)), [plainPage, clubPage]);
        assert.deepEqual(ids(await list(`?product_ids[]=${ghostProduct}`)), []);
      });

      test('filters combine with AND', async () => {
        assert.deepEqual(ids(await list(`?q=assinatura&product_ids[]=${ebook}`)), [clubPage]);
        assert.deepEqual(ids(await list(`?q=p%C3%A1gina&has_products=true`)), [plainPage]);
        assert.deepEqual(ids(await list(`?has_products=false&product_ids[]=${ebook}`)), []);
        assert.deepEqual(ids(await list(`?q=vazia&has_products=false`)), [emptyPage]);
      });

      test('another account sees only its own page, whatever the filters', async () => {
        assert.deepEqual(
          (await list('', other.apiKey)).json().map((p: { page_title: string }) => p.page_title),
          ['Página alheia'],
        );
        assert.deepEqual(ids(await list(`?product_ids[]=${ebook}`, other.apiKey)), []);
      });

      test('bad queries are 422; no key is 401', async () => {
        for (const query of ['?has_products=maybe', '?product_ids[]=x', '?product_ids[]=0', '?page=2']) {
          const res = await list(query);
          assert.equal(res.statusCode, 422, query);
          assert.equal(res.json().code, 'validation_failed');
        }
        assert.equal((await app.inject({ url: '/api/v1/checkout_pages' })).statusCode, 401);
      });
    });

    describe('GET /checkout_pages/{id}', () => {
      const show = (id: string, key = shop.apiKey) =>
        app.inject({ url: `/api/v1/checkout_pages/${id}`, headers: bearer(key) });

      test('every CheckoutPageShow field of a fully configured page', async () => {
        const plan = await insertPaymentPlan(database, shop, {
          name: 'Cartão em até 12x',
          payment_method: 'credit_card',
        });
        const bonus = await insertProduct(database, shop, { name: 'Bônus' });
        const quarterly = await insertProduct(database, shop, {
          name: 'Trimestral',
          description: null,
          short_description: 'Plano trimestral',
          product_type: 'service',
          subscription: true,
          interval: 'month',
          interval_count: 3,
          value_cents: 8990,
          image_url: 'https://img.example/q.png',
        });
        const gone = await insertProduct(database, shop, { name: 'Removido', deleted_at: new Date() });
        const page = await insertCheckoutPage(database, shop, {
          page_title: 'Completa',
          logo_url: 'https://img.example/logo.png',
          menus: JSON.stringify([{ label: 'Ajuda', url: 'https://help.example' }]),
          integrations: JSON.stringify({ pixel: { id: '123' } }),
          customer_data_at: 'end',
          index_on_search_engines: true,
          require_scheduling: true,
          enable_two_cards: true,
          enable_coupons: true,
          upsell_product_id: bonus,
          default_payment_plan_id: plan,
          custom_code: '<script>track()</script>',
        });
        await addPageProduct(database, shop, page, quarterly, {
          position: 2,
          allow_quantity: true,
          max_quantity: 5,
          recommended: true,
        });
        await addPageProduct(database, shop, page, ebook, { position: 1 });
        await addPageProduct(database, shop, page, gone, { position: 0 });
        const ebookUid = (
          await database.db.selectFrom('products').select('uid').where('id', '=', ebook).executeTakeFirstOrThrow()
        ).uid;
        const quarterlyUid = (
          await database.db.selectFrom('products').select('uid').where('id', '=', quarterly).executeTakeFirstOrThrow()
        ).uid;

        const res = await show(page);
        assert.equal(res.statusCode, 200);
        assert.deepEqual(documentedJson(app, res), {
          id: page,
          page_title: 'Completa',
          main_color: '#1a73e8',
          currency: 'BRL',
          gateway: 'gateway_a',
          public_key: 'pk_a',
          subscription: true,
          enable_coupons: true,
          company_id: shop.companyId,
          customer_data_at: 'end',
          logo: 'https://img.example/logo.png',
          menus: [{ label: 'Ajuda', url: 'https://help.example' }],
          index_on_search_engines: true,
          require_scheduling: true,
          enable_two_cards: true,
          upsell_product: { id: bonus, name: 'Bônus' },
          custom_code: '<script>track()</script>',
          default_payment_plan: { id: String(plan), name: 'Cartão em até 12x', payment_method: 'credit_card' },
          integrations: { pixel: { id: '123' } },
          products: [
            {
              id: ebook,
              uid: ebookUid,
              name: 'E-book Finanças',
              description: '',
              product_type: 'digital',
              subscription: false,
              type: 'one_time',
              interval: null,
              max_quantity: 1,
              value: 49.9,
              image: null,
              allow_quantity: false,
              recommended: false,
            },
            {
              id: quarterly,
              uid: quarterlyUid,
              name: 'Trimestral',
              description: 'Plano trimestral',
              product_type: 'service',
              subscription: true,
              type: 'subscription',
              interval: 'quarterly',
              max_quantity: 5,
              value: 89.9,
              image: 'https://img.example/q.png',
              allow_quantity: true,
              recommended: true,
            },
          ],
        });
      });

      test('a bare page: no logo, upsell or default plan; empty custom code, menus, integrations and products', async () => {
        const res = await show(emptyPage);
        assert.equal(res.statusCode, 200);
        const body = documentedJson(app, res);
        // The specification's "optional" upsell_product is left out; logo and default_payment_plan are null.
        assert.equal('upsell_product' in body, false);
        for (const field of ['logo', 'default_payment_plan']) assert.equal(body[field], null, field);
        assert.equal(body.custom_code, '');
        assert.deepEqual([body.menus, body.integrations, body.products, body.customer_data_at], [[], {}, [], 'start']);
      });

      test('a deleted upsell product or default plan is left out', async () => {
        const plan = await insertPaymentPlan(database, shop, { deleted_at: new Date() });
        const upsell = await insertProduct(database, shop, { deleted_at: new Date() });
        const page = await insertCheckoutPage(database, shop, {
          upsell_product_id: upsell,
          default_payment_plan_id: plan,
        });
        const body = documentedJson(app, await show(page));
        assert.equal('upsell_product' in body, false);
        assert.equal(body.default_payment_plan, null);
      });

      test('another account’s, a deleted or an unknown page is 404; a malformed id is 422; no key is 401', async () => {
        assert.equal((await show(plainPage, other.apiKey)).statusCode, 404);
        assert.equal((await show(plainPage, other.apiKey)).json().code, 'not_found');
        assert.equal((await show(deletedPage)).statusCode, 404);
        assert.equal((await show(randomUUID())).statusCode, 404);
        assert.equal((await show('not-a-uuid')).statusCode, 422);
        assert.equal((await app.inject({ url: `/api/v1/checkout_pages/${plainPage}` })).statusCode, 401);
      });
    });
  });
}
