import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import {
  addCompany,
  createPricingMerchant,
  insertCart,
  insertOrder,
  insertPlan,
  insertProduct,
  setTimeZone,
  startPricingApp,
  type PricingMerchant,
} from '../support/pricing-fixtures.ts';

const NOW = new Date('2026-03-15T15:00:00Z'); // 12:00 in São Paulo
const ALPHA = { origin: 'https://alpha.example' };

for (const engine of engines()) {
  describe(`GET /payment_plans for charges, carts, cart pages and no context on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let setNow: (now: Date) => void;
    let alpha: PricingMerchant;
    let beta: PricingMerchant;
    const charges = {} as Record<'open' | 'overdue' | 'dueToday' | 'noPlan' | 'notACharge', string>;
    const carts = {} as Record<'items' | 'override', string>;

    const get = (query: string, headers: Record<string, string> = ALPHA) =>
      app.inject({ url: `/api/v1/payment_plans?${query}`, headers });
    const values = (body: any, method: string) => {
      assert.ok(Array.isArray(body[method]), `no ${method} options in ${JSON.stringify(body)}`);
      return body[method].map((o: any) => o.value);
    };

    before(async () => {
      database = await engine.open();
      ({ app, setNow } = await startPricingApp(database, NOW));
      alpha = await createPricingMerchant(database, ['alpha.example']);
      beta = await createPricingMerchant(database, ['beta.example']);
      const db = database.db;
      const boleto = alpha.plans.boleto;
      charges.open = await insertOrder(db, alpha.tenant, {
        subtotalCents: 30_980,
        freightCents: 1_500,
        dueDate: '2026-03-22',
        planId: boleto,
      });
      charges.overdue = await insertOrder(db, alpha.tenant, {
        subtotalCents: 30_980,
        freightCents: 1_500,
        dueDate: '2026-03-05',
        planId: boleto,
      });
      charges.dueToday = await insertOrder(db, alpha.tenant, {
        subtotalCents: 10_000,
        dueDate: '2026-03-15',
        planId: boleto,
      });
      charges.noPlan = await insertOrder(db, alpha.tenant, { subtotalCents: 10_000, dueDate: '2026-03-01' });
      charges.notACharge = await insertOrder(db, alpha.tenant, { subtotalCents: 10_000 });
      carts.items = await insertCart(db, alpha.tenant, {
        cartPageId: alpha.cartPage,
        freightCents: 1_500,
        items: [
          { quantity: 2, unitCents: 3_000 },
          { productId: alpha.products.ebook, quantity: 1, unitCents: 4_990 },
        ],
      });
      carts.override = await insertCart(db, alpha.tenant, {
        cartPageId: alpha.cartPage,
        freightCents: 1_500,
        totalOverrideCents: 5_000,
        items: [{ quantity: 1, unitCents: 9_999 }],
      });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    describe('charge_id', () => {
      test('a charge not yet due: its total; every kept plan of its company', async () => {
        const body = (await get(`charge_id=${charges.open}`)).json();
        assert.deepEqual(Object.keys(body).sort(), ['bank_slip', 'credit_card', 'pix']);
        assert.deepEqual(values(body, 'pix'), [324.8]);
        assert.ok(!body.credit_card.some((o: any) => o.id.startsWith(`${alpha.plans.deletedPlan}-`)));
      });

      test('ten days overdue: the charge’s plan adds a 2% fine and 1% a month pro rata (docs/pricing.md example)', async () => {
        const body = (await get(`charge_id=${charges.overdue}`)).json();
        assert.deepEqual(values(body, 'pix'), [332.38]); // 324,80 + 6,50 + 1,08
        assert.deepEqual(values(body, 'bank_slip'), [332.38]);
        assert.equal(body.credit_card[1].value, 169.17); // 332,38 × 1.0179 = 338,33 → 169,17 + 169,16
      });

      test('on the due date nothing is added; a charge without a plan has no fine', async () => {
        assert.deepEqual(values((await get(`charge_id=${charges.dueToday}`)).json(), 'pix'), [100]);
        assert.deepEqual(values((await get(`charge_id=${charges.noPlan}`)).json(), 'pix'), [100]);
      });

      test('days late are counted in the company’s time zone', async () => {
        setNow(new Date('2026-03-16T01:30:00Z')); // still the 15th in São Paulo, the 16th in UTC
        try {
          assert.deepEqual(values((await get(`charge_id=${charges.dueToday}`)).json(), 'pix'), [100]);
          await setTimeZone(database.db, alpha.tenant, 'UTC');
          // one day late: 2% fine 2,00 + 100 × 1% / 30 = 0,03
          assert.deepEqual(values((await get(`charge_id=${charges.dueToday}`)).json(), 'pix'), [102.03]);
        } finally {
          await setTimeZone(database.db, alpha.tenant, 'America/Sao_Paulo');
          setNow(NOW);
        }
      });

      test('a coupon does not change a charge; amount replaces its total', async () => {
        assert.deepEqual(values((await get(`charge_id=${charges.open}&coupon=TEN`)).json(), 'pix'), [324.8]);
        assert.deepEqual(values((await get(`charge_id=${charges.overdue}&amount=300`)).json(), 'pix'), [300]);
      });

      test('an order without a due date, or an unknown UID, is not a charge', async () => {
        for (const uid of [charges.notACharge, '00000000-0000-4000-8000-000000000000']) {
          const res = await get(`charge_id=${uid}`);
          assert.equal(res.statusCode, 422);
          assert.deepEqual(res.json(), { errors: ['charge_id does not name a charge'] });
        }
      });

      test('another account’s origin or key gets 403 with no body', async () => {
        for (const headers of [{ origin: 'https://beta.example' }, bearer(beta.tenant.apiKey)]) {
          const res = await get(`charge_id=${charges.open}`, headers);
          assert.equal(res.statusCode, 403);
          assert.equal(res.body, '');
        }
      });

      test('charge_id wins over cart_id and cart_page_id', async () => {
        const body = (
          await get(`cart_page_id=${alpha.cartPage}&cart_id=${carts.items}&charge_id=${charges.open}`)
        ).json();
        assert.deepEqual(values(body, 'pix'), [324.8]);
      });
    });

    describe('cart_id', () => {
      test('the items’ total plus freight; the cart page’s plans only', async () => {
        const body = (await get(`cart_id=${carts.items}`)).json();
        assert.deepEqual(Object.keys(body).sort(), ['bank_slip', 'credit_card']);
        assert.deepEqual(values(body, 'bank_slip'), [124.9]); // 60,00 + 49,90 + 15,00
      });

      test('total_override_cents replaces the items, freight is still added', async () => {
        assert.deepEqual(values((await get(`cart_id=${carts.override}`)).json(), 'bank_slip'), [65]);
      });

      test('a coupon applies to the items, not the freight, and is checked against the items’ products', async () => {
        assert.deepEqual(values((await get(`cart_id=${carts.items}&coupon=TEN`)).json(), 'bank_slip'), [113.91]); // 109,90 − 10,99 + 15
        // The cart's first line names no catalog product: no product restriction covers it.
        assert.deepEqual((await get(`cart_id=${carts.items}&coupon=EBOOKONLY`)).json(), {
          errors: ['Coupon does not apply to these products'],
        });
        assert.deepEqual((await get(`cart_id=${carts.items}&coupon=OLD`)).json(), { errors: ['Coupon has expired'] });
      });

      test('cart_id wins over cart_page_id; an unknown cart is a 422; another account’s origin 403', async () => {
        assert.deepEqual(
          values((await get(`cart_page_id=${alpha.cartPage}&cart_id=${carts.items}`)).json(), 'bank_slip'),
          [124.9],
        );
        assert.deepEqual((await get('cart_id=00000000-0000-4000-8000-000000000000')).json(), {
          errors: ['cart_id does not name a cart'],
        });
        const foreign = await get(`cart_id=${carts.items}`, { origin: 'https://beta.example' });
        assert.equal(foreign.statusCode, 403);
        assert.equal(foreign.body, '');
      });
    });

    describe('cart_page_id', () => {
      test('with amount: the amount; with products: their subtotal, with a coupon', async () => {
        assert.deepEqual(values((await get(`cart_page_id=${alpha.cartPage}&amount=100`)).json(), 'bank_slip'), [100]);
        const products = `products[${alpha.products.course}]=1&products[${alpha.products.offPage}]=2`;
        assert.deepEqual(values((await get(`cart_page_id=${alpha.cartPage}&${products}`)).json(), 'bank_slip'), [150]);
        assert.deepEqual(
          values((await get(`cart_page_id=${alpha.cartPage}&${products}&coupon=MINUS20`)).json(), 'bank_slip'),
          [130],
        );
      });

      test('neither amount nor products, or another company’s product: 422', async () => {
        assert.deepEqual((await get(`cart_page_id=${alpha.cartPage}`)).json(), {
          errors: ['cart_page_id needs amount or products'],
        });
        const foreign = await get(`cart_page_id=${alpha.cartPage}&products[${beta.products.course}]=1`);
        assert.deepEqual(foreign.json(), {
          errors: [`querystring/products/${beta.products.course} is not a product of this company`],
        });
      });

      test('another account’s origin gets 403 with no body', async () => {
        const res = await get(`cart_page_id=${alpha.cartPage}&amount=10`, { origin: 'https://beta.example' });
        assert.equal(res.statusCode, 403);
        assert.equal(res.body, '');
      });
    });

    describe('no context', () => {
      const course = () => `products[${alpha.products.course}]=1`;

      test('with the account’s key: every kept plan of its primary company', async () => {
        const body = (await get(course(), bearer(alpha.tenant.apiKey))).json();
        assert.deepEqual(Object.keys(body).sort(), ['bank_slip', 'credit_card', 'pix']);
        assert.equal(body.credit_card.length, 6);
        assert.deepEqual(
          values((await get(`${course()}&coupon=TEN`, bearer(alpha.tenant.apiKey))).json(), 'pix'),
          [90],
        );
      });

      test('from the per-company host with an allowed origin', async () => {
        const res = await get(course(), { ...ALPHA, host: `${alpha.tenant.slug}.pay.test` });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(values(res.json(), 'pix'), [100]);
      });

      test('the company host of another account: 403 for this origin or key', async () => {
        for (const headers of [ALPHA, bearer(alpha.tenant.apiKey)]) {
          const res = await get(`products[${beta.products.course}]=1`, {
            ...headers,
            host: `${beta.tenant.slug}.pay.test`,
          });
          assert.equal(res.statusCode, 403);
          assert.equal(res.body, '');
        }
      });

      test('only the company’s own plans and products', async () => {
        const sister = await addCompany(database.db, alpha.tenant, `${alpha.tenant.slug}-b`);
        const sisterPlan = await insertPlan(database.db, sister, { method: 'pix', companyId: sister.companyId });
        const sisterProduct = await insertProduct(database.db, sister, 500, { companyId: sister.companyId });
        const own = (await get(course(), bearer(alpha.tenant.apiKey))).json();
        assert.ok(!own.pix.some((o: any) => o.id.startsWith(`${sisterPlan}-`)));
        const viaHost = (
          await get(`products[${sisterProduct}]=1`, { ...ALPHA, host: `${sister.slug}.pay.test` })
        ).json();
        assert.deepEqual(
          viaHost.pix.map((o: any) => o.id),
          [`${sisterPlan}-1`],
        );
        const wrongCompany = await get(`products[${sisterProduct}]=1`, bearer(alpha.tenant.apiKey));
        assert.deepEqual(wrongCompany.json(), {
          errors: [`querystring/products/${sisterProduct} is not a product of this company`],
        });
      });

      test('without products, or without a key or company host: 422', async () => {
        assert.deepEqual((await get('', bearer(alpha.tenant.apiKey))).json(), {
          errors: ['products is required (product id → quantity, as products[7]=2)'],
        });
        assert.deepEqual((await get('amount=10', bearer(alpha.tenant.apiKey))).json(), {
          errors: ['products is required (product id → quantity, as products[7]=2)'],
        });
        const anonymous = await get(course());
        assert.equal(anonymous.statusCode, 422);
        assert.match(anonymous.json().errors[0], /Send a context/);
      });

      test('another account’s product: 422', async () => {
        const res = await get(`products[${beta.products.course}]=1`, bearer(alpha.tenant.apiKey));
        assert.deepEqual(res.json(), {
          errors: [`querystring/products/${beta.products.course} is not a product of this company`],
        });
      });
    });
  });
}
