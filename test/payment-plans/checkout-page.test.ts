import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import {
  createPricingMerchant,
  insertCheckoutPage,
  insertProduct,
  startPricingApp,
  type PricingMerchant,
} from '../support/pricing-fixtures.ts';

const NOW = new Date('2026-03-15T15:00:00Z');
const ALPHA = { origin: 'https://alpha.example' };

for (const engine of engines()) {
  describe(`GET /payment_plans for a checkout page on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: PricingMerchant;
    let beta: PricingMerchant;
    let deletedProduct: number;

    const get = (query: string, headers: Record<string, string> = ALPHA) =>
      app.inject({ url: `/api/v1/payment_plans?${query}`, headers });
    const pageQuery = (products: string, extra = '') => `checkout_page_id=${alpha.page}&${products}${extra}`;
    const course = () => `products[${alpha.products.course}]=1`;

    before(async () => {
      database = await engine.open();
      ({ app } = await startPricingApp(database, NOW));
      alpha = await createPricingMerchant(database, ['alpha.example']);
      beta = await createPricingMerchant(database, ['beta.example']);
      deletedProduct = await insertProduct(database.db, alpha.tenant, 700, { deleted: true });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('one key per configured method; every option with exactly the spec’s fields', async () => {
      const res = await get(pageQuery(course()));
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['bank_slip', 'credit_card', 'pix']);
      assert.deepEqual(body.pix, [
        {
          id: `${alpha.plans.pix}-1`,
          name: 'Pix - R$ 100,00',
          number: 1,
          value: 100,
          fine: 0,
          fine_tax: 0,
          fine_type: 'percentage',
          late_interest: 0,
          late_interest_tax: 0,
          payment_method: 'pix',
          fixed: 0,
          percentage: 0,
        },
      ]);
      assert.deepEqual(
        body.bank_slip.map((o: any) => [o.id, o.value, o.fine_tax, o.late_interest_tax, o.payment_method]),
        [[`${alpha.plans.boleto}-1`, 100, 2, 1, 'bank_slip']],
      );
      const card = body.credit_card.map((o: any) => [o.id, o.name, o.number, o.value, o.fixed, o.percentage]);
      const id = (n: number) => `${alpha.plans.card}-${n}`;
      assert.deepEqual(card, [
        [id(1), 'Cartão - R$ 100,00', 1, 100, 0, 0],
        [id(2), '2x de R$ 50,90 com juros (total R$ 101,80)', 2, 50.9, 0, 1.79], // 101,79 / 2 rounded up
        [id(3), '3x de R$ 34,34 com juros (total R$ 103,02)', 3, 34.34, 0.5, 2.5], // 100 + 2,50 + 0,50 = 103,00
        [id(4), '4x de R$ 25,75 com juros (total R$ 103,00)', 4, 25.75, 0, 3],
        [id(5), '5x de R$ 20,60 com juros (total R$ 103,00)', 5, 20.6, 0, 3],
        [id(6), '6x de R$ 17,17 com juros (total R$ 103,02)', 6, 17.17, 0, 3], // 103,00 / 6 rounded up
      ]);
    });

    test('a deleted plan linked to the page is not offered', async () => {
      const body = (await get(pageQuery(course()))).json();
      assert.ok(!body.credit_card.some((o: any) => o.id.startsWith(`${alpha.plans.deletedPlan}-`)));
    });

    test('quantities and several products are summed from the database prices', async () => {
      const body = (
        await get(pageQuery(`products[${alpha.products.course}]=2&products[${alpha.products.ebook}]=1`))
      ).json();
      assert.equal(body.pix[0].value, 249.9);
    });

    test('the plan minimum limits the counts: R$ 49,90 goes up to 5x (with 3%, 51,40 / 5 = 10,28)', async () => {
      const body = (await get(pageQuery(`products[${alpha.products.ebook}]=1`))).json();
      assert.deepEqual(
        body.credit_card.map((o: any) => o.number),
        [1, 2, 3, 4, 5],
      );
      assert.equal(body.credit_card[4].value, 10.28);
    });

    test('a valid coupon is applied before interest, matched case-insensitively', async () => {
      const ten = (await get(pageQuery(course(), '&coupon=ten'))).json();
      assert.equal(ten.pix[0].value, 90);
      assert.equal(ten.credit_card[1].value, 45.81); // 90 × 1.0179 = 91,61 → 45,81 + 45,80
      const price = (await get(pageQuery(course(), '&coupon=MINUS20'))).json();
      assert.equal(price.pix[0].value, 80);
      const restricted = (await get(pageQuery(`products[${alpha.products.ebook}]=1`, '&coupon=EBOOKONLY'))).json();
      assert.equal(restricted.pix[0].value, 44.9);
    });

    test('a coupon larger than the subtotal brings the total to zero, never below: nothing to pay, so no option', async () => {
      const body = (await get(pageQuery(`products[${alpha.products.sticker}]=1`, '&coupon=MINUS20'))).json();
      assert.deepEqual(body, { credit_card: [], bank_slip: [], pix: [] });
    });

    test('a blank coupon is no coupon', async () => {
      assert.equal((await get(pageQuery(course(), '&coupon='))).json().pix[0].value, 100);
    });

    for (const [code, message] of [
      ['NOPE', 'Coupon not found'],
      ['OLD', 'Coupon has expired'],
      ['GONE', 'Coupon has reached its usage limit'],
      ['EBOOKONLY', 'Coupon does not apply to these products'],
    ] as [string, string][]) {
      test(`coupon ${code}: 422 with the coupon message`, async () => {
        const res = await get(pageQuery(course(), `&coupon=${code}`));
        assert.equal(res.statusCode, 422);
        assert.deepEqual(res.json(), { errors: [message] });
      });
    }

    test('another account’s coupon code is unknown here', async () => {
      await database.db
        .insertInto('coupons')
        .values({
          account_id: beta.tenant.accountId,
          company_id: beta.tenant.companyId,
          code: 'BETAONLY',
          type: 'percentage',
          percentage: 5,
        })
        .execute();
      assert.deepEqual((await get(pageQuery(course(), '&coupon=BETAONLY'))).json(), { errors: ['Coupon not found'] });
    });

    test('a page without coupons refuses one, and offers only its own plans', async () => {
      const withCoupon = await get(`checkout_page_id=${alpha.cardOnlyPage}&${course()}&coupon=TEN`);
      assert.equal(withCoupon.statusCode, 422);
      assert.deepEqual(withCoupon.json(), { errors: ['Coupons are not accepted here'] });
      const plain = (await get(`checkout_page_id=${alpha.cardOnlyPage}&${course()}`)).json();
      assert.deepEqual(Object.keys(plain), ['credit_card']);
    });

    test('amount replaces the total but does not waive products', async () => {
      assert.equal((await get(pageQuery(course(), '&amount=50.5'))).json().pix[0].value, 50.5);
      assert.equal((await get(pageQuery(course(), '&amount=50.5&coupon=TEN'))).json().pix[0].value, 50.5);
      const withoutProducts = await get(`checkout_page_id=${alpha.page}&amount=50`);
      assert.equal(withoutProducts.statusCode, 422);
      assert.deepEqual(withoutProducts.json(), {
        errors: ['products is required (product id → quantity, as products[7]=2)'],
      });
      const threeDecimals = await get(pageQuery(course(), '&amount=1.005'));
      assert.deepEqual(threeDecimals.json(), { errors: ['amount has more than two decimals'] });
    });

    test('products that are not on the page, deleted, another account’s or over the limit: 422 per product', async () => {
      const cases: [string, string][] = [
        [
          `products[${alpha.products.offPage}]=1`,
          `querystring/products/${alpha.products.offPage} is not a product of this checkout page`,
        ],
        [
          `products[${beta.products.course}]=1`,
          `querystring/products/${beta.products.course} is not a product of this checkout page`,
        ],
        [
          `products[${deletedProduct}]=1`,
          `querystring/products/${deletedProduct} is not a product of this checkout page`,
        ],
        [`products[999999]=1`, 'querystring/products/999999 is not a product of this checkout page'],
        [`products[${alpha.products.course}]=4`, `querystring/products/${alpha.products.course} must be at most 3`],
        [`products[${alpha.products.sticker}]=2`, `querystring/products/${alpha.products.sticker} must be at most 1`],
      ];
      for (const [products, message] of cases) {
        const res = await get(pageQuery(products));
        assert.equal(res.statusCode, 422, products);
        assert.deepEqual(res.json(), { errors: [message] }, products);
      }
      const two = await get(pageQuery(`products[${alpha.products.offPage}]=1&products[999999]=1`));
      assert.equal(two.json().errors.length, 2);
    });

    test('malformed queries are 422 with an errors array, never the standard body', async () => {
      for (const query of [
        `checkout_page_id=not-a-uuid&${'products[1]=1'}`,
        pageQuery(`products[${alpha.products.course}]=0`),
        pageQuery(`products[${alpha.products.course}]=two`),
        pageQuery('products[abc]=1'),
        `checkout_page_id=${alpha.page}&products=7`,
        pageQuery(course(), '&amount=-1'),
        pageQuery(course(), '&unknown=1'),
        pageQuery(course(), '&coupon=4111111111111111'),
      ]) {
        const res = await get(query);
        assert.equal(res.statusCode, 422, query);
        const body = res.json();
        assert.deepEqual(Object.keys(body), ['errors'], query);
        assert.ok(body.errors.length >= 1 && body.errors.every((e: unknown) => typeof e === 'string'), query);
      }
    });

    test('an unknown or deleted checkout page is a 422', async () => {
      const deleted = await insertCheckoutPage(database.db, alpha.tenant, {
        products: [{ id: alpha.products.course }],
        planIds: [alpha.plans.pix],
        deleted: true,
      });
      for (const pageId of ['00000000-0000-4000-8000-000000000000', deleted]) {
        const res = await get(`checkout_page_id=${pageId}&${course()}`);
        assert.equal(res.statusCode, 422);
        assert.deepEqual(res.json(), { errors: ['checkout_page_id does not name a checkout page'] });
      }
    });

    test('403 with no body: no origin, a disallowed origin, another account’s origin or key, an invalid key', async () => {
      for (const headers of [
        {},
        { origin: 'https://evil.example' },
        { origin: 'https://beta.example' },
        { referer: 'https://beta.example/checkout' },
        bearer(beta.tenant.apiKey),
        { ...ALPHA, ...bearer('ck_0000000000000000_invalid') },
      ]) {
        const res = await get(pageQuery(course()), headers as Record<string, string>);
        assert.equal(res.statusCode, 403, JSON.stringify(headers));
        assert.equal(res.body, '', JSON.stringify(headers));
      }
    });

    test('the account’s own key or a Referer of an allowed host is let through', async () => {
      assert.equal((await get(pageQuery(course()), bearer(alpha.tenant.apiKey))).statusCode, 200);
      assert.equal((await get(pageQuery(course()), { referer: 'https://alpha.example/page' })).statusCode, 200);
    });

    test('checkout_page_id wins over every other context', async () => {
      const res = await get(
        `cart_page_id=${alpha.cartPage}&cart_id=00000000-0000-4000-8000-000000000000&charge_id=00000000-0000-4000-8000-000000000001&${pageQuery(course())}`,
      );
      assert.equal(res.statusCode, 200);
      assert.deepEqual(Object.keys(res.json()).sort(), ['bank_slip', 'credit_card', 'pix']);
    });
  });
}
