import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { documentedJson } from '../support/documented-response.ts';
import { engines } from '../support/engines.ts';
import {
  insertCartPage,
  insertCheckoutPage,
  insertCustomer,
  insertGateway,
  insertOrder,
  insertPaymentPlan,
  insertProduct,
  startRecordsApp,
  VALID_CNPJ,
} from '../support/records-fixtures.ts';

const ALPHA_ORIGIN = { origin: 'https://alpha.example' };

for (const engine of engines()) {
  describe(`GET /charges/{id} on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let beta: Tenant;
    let product: number;
    let charge: { id: number; uid: string };
    const show = (uid: string, headers: Record<string, string> = ALPHA_ORIGIN) =>
      app.inject({ url: `/api/v1/charges/${uid}`, headers });

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      alpha = await createTenant(database, { allowedHosts: ['alpha.example'] });
      beta = await createTenant(database, { allowedHosts: ['beta.example'] });
      await insertGateway(database, alpha, 'gateway_c', 'pk_c');
      await insertGateway(database, alpha, 'gateway_b', 'pk_b');
      product = await insertProduct(database, alpha, {
        name: 'Consultoria',
        description: 'Uma hora',
        productType: 'service',
        imageUrl: 'https://cdn.example/c.png',
      });
      const customer = await insertCustomer(database, alpha, {
        email: 'empresa@example.com',
        name: 'Empresa',
        identification: VALID_CNPJ,
        socialReason: 'Empresa LTDA',
        city: 'Recife',
        street: 'Rua D',
      });
      charge = await insertOrder(database, alpha, {
        customer_id: customer,
        date: '2024-05-01',
        due_date: '2024-05-08',
        retention_cents: 1_100,
        freight_cents: 2_000,
        observation: 'Parcela única',
        coupon_code: 'DEZ',
        discount_cents: 1_500,
        items: [
          { productId: product, name: 'Consultoria', quantity: 2, unitCents: 15_000 },
          { name: 'Avulso', unitCents: 500 },
        ],
      });
      for (const [type, status, url] of [
        ['nfse', 'authorized', 'https://nf.example/1'],
        ['nfe', 'cancelled', 'https://nf.example/2'],
        ['nfe', 'authorized', null],
      ] as const) {
        await database.db
          .insertInto('invoices')
          .values({
            account_id: alpha.accountId,
            order_id: charge.id,
            external_id: `${type}-${status}-${url}`,
            type,
            status,
            url,
          })
          .execute();
      }
      await database.db
        .insertInto('order_files')
        .values({
          account_id: alpha.accountId,
          order_id: charge.id,
          name: 'Contrato.pdf',
          url: 'https://files.example/contrato.pdf',
        })
        .execute();
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('a charge without a page uses the company’s branding and shows ChargeShow exactly', async () => {
      const res = await show(charge.uid);
      assert.equal(res.statusCode, 200);
      const company = await database.db
        .selectFrom('companies')
        .select('name')
        .where('id', '=', alpha.companyId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(documentedJson(app, res), {
        id: charge.uid,
        gateway: 'gateway_b',
        main_color: '#1a73e8',
        menus: [],
        page_title: company.name,
        public_key: 'pk_b',
        logo: null,
        currency: 'BRL',
        enable_two_cards: false,
        custom_code: '',
        default_payment_plan: null,
        date: '2024-05-01',
        due_date: '2024-05-08',
        retention: 11,
        freight: 20,
        observation: 'Parcela única',
        customer: {
          email: 'empresa@example.com',
          name: 'Empresa',
          foreign: false,
          identification: VALID_CNPJ,
          social_reason: 'Empresa LTDA',
          address: {
            street: 'Rua D',
            neighborhood: null,
            number: null,
            complement: null,
            zipcode: null,
            city: 'Recife',
            state: null,
          },
        },
        coupon: { code: 'DEZ', discount: 15 },
        products: [
          {
            id: product,
            name: 'Consultoria',
            description: 'Uma hora',
            product_type: 'service',
            subscription: false,
            quantity: 2,
            value: 150,
            image: 'https://cdn.example/c.png',
          },
          {
            id: null,
            name: 'Avulso',
            description: null,
            product_type: null,
            subscription: false,
            quantity: 1,
            value: 5,
            image: null,
          },
        ],
        invoices: [
          { type: 'nfse', url: 'https://nf.example/1' },
          { type: 'nfe', url: null },
        ],
        files: [{ url: 'https://files.example/contrato.pdf', name: 'Contrato.pdf' }],
      });
    });

    test('coupon, observation and customer are null when unset; no gateway key gives gateway_a and an empty key', async () => {
      const bare = await insertOrder(database, beta, { date: '2024-05-01', due_date: '2024-05-02' });
      const body = documentedJson(app, await show(bare.uid, { origin: 'https://beta.example' }));
      for (const field of ['coupon', 'observation', 'customer', 'logo', 'default_payment_plan'])
        assert.equal(body[field], null, field);
      assert.deepEqual(
        [body.gateway, body.public_key, body.products, body.invoices, body.files, body.retention],
        ['gateway_a', '', [], [], [], 0],
      );
    });

    test('a charge from a checkout page or a cart page takes that page’s branding; its own plan wins over the page’s', async () => {
      const pagePlan = await insertPaymentPlan(database, alpha, 'credit_card', 'Cartão');
      const ownPlan = await insertPaymentPlan(database, alpha, 'bank_slip', 'Boleto');
      const checkoutPage = await insertCheckoutPage(database, alpha, {
        title: 'Checkout',
        gateway: 'gateway_c',
        mainColor: '#000000',
        logoUrl: 'https://cdn.example/l.png',
        enableTwoCards: true,
        customCode: '<b>',
        defaultPaymentPlanId: pagePlan,
      });
      const fromCheckout = await insertOrder(database, alpha, {
        checkout_page_id: checkoutPage,
        due_date: '2024-06-01',
      });
      const body = (await show(fromCheckout.uid)).json();
      assert.deepEqual(
        [
          body.page_title,
          body.gateway,
          body.public_key,
          body.main_color,
          body.logo,
          body.enable_two_cards,
          body.custom_code,
          body.default_payment_plan,
        ],
        [
          'Checkout',
          'gateway_c',
          'pk_c',
          '#000000',
          'https://cdn.example/l.png',
          true,
          '<b>',
          { id: String(pagePlan), name: 'Cartão', payment_method: 'credit_card' },
        ],
      );
      assert.equal('enable_coupons' in body || 'integrations' in body, false);
      const withPlan = await insertOrder(database, alpha, {
        checkout_page_id: checkoutPage,
        due_date: '2024-06-01',
        payment_plan_id: ownPlan,
      });
      assert.deepEqual((await show(withPlan.uid)).json().default_payment_plan, {
        id: String(ownPlan),
        name: 'Boleto',
        payment_method: 'bank_slip',
      });
      const cartPage = await insertCartPage(database, alpha, { title: 'Carrinho', mainColor: '#abcdef' });
      const fromCart = await insertOrder(database, alpha, { cart_page_id: cartPage, due_date: '2024-06-01' });
      assert.deepEqual(
        [(await show(fromCart.uid)).json().page_title, (await show(fromCart.uid)).json().main_color],
        ['Carrinho', '#abcdef'],
      );
    });

    test('an order created by POST /orders opens as a charge at its link', async () => {
      const created = await app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        headers: bearer(alpha.apiKey),
        payload: { customer: { email: 'novo@example.com', name: 'Novo' }, items: [{ product_id: product }] },
      });
      const { uid, link, date } = created.json();
      assert.equal(link, `http://pay.test/pay/charges/${uid}`);
      const res = await show(uid);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(
        [res.json().date, res.json().due_date, res.json().customer.email],
        [date, date, 'novo@example.com'],
      );
    });

    test('an order without a due date is not a charge', async () => {
      const order = await insertOrder(database, alpha, {});
      const res = await show(order.uid);
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 'not_found');
      assert.equal((await show('00000000-0000-4000-8000-000000000000')).statusCode, 404);
      assert.equal((await show('abc')).statusCode, 422);
    });

    test('host-restricted to the charge’s account', async () => {
      assert.equal((await show(charge.uid, bearer(alpha.apiKey))).statusCode, 200);
      const refused: Array<Record<string, string>> = [{ origin: 'https://beta.example' }, bearer(beta.apiKey), {}];
      for (const headers of refused) {
        const res = await show(charge.uid, headers);
        assert.equal(res.statusCode, 403, JSON.stringify(headers));
        assert.equal(res.json().code, 'forbidden');
      }
    });
  });
}
