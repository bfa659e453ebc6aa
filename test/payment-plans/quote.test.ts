import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { AppError } from '../../src/http/errors.ts';
import { parseOptionId, quoteOption } from '../../src/modules/payment-plans/payment-plans.service.ts';
import { engines } from '../support/engines.ts';
import {
  createPricingMerchant,
  insertOrder,
  startPricingApp,
  type PricingMerchant,
} from '../support/pricing-fixtures.ts';

const NOW = new Date('2026-03-15T15:00:00Z');

/** Pay flows must charge what quoteOption recomputes from the database, never a client's amount. */
for (const engine of engines()) {
  describe(`quoteOption on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: PricingMerchant;
    let beta: PricingMerchant;

    const refused = (message: RegExp) => (error: unknown) =>
      error instanceof AppError && error.status === 422 && message.test(error.message);

    before(async () => {
      database = await engine.open();
      ({ app } = await startPricingApp(database, NOW));
      alpha = await createPricingMerchant(database, ['alpha.example']);
      beta = await createPricingMerchant(database, ['beta.example']);
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('a checkout page option: interest, fixed fee and coupon from the database', async () => {
      const query = { checkout_page_id: alpha.page, products: { [alpha.products.course]: 1 }, coupon: 'ten' };
      const quote = await quoteOption(database.db, query, `${alpha.plans.card}-3`, NOW);
      assert.equal(quote.accountId, alpha.tenant.accountId);
      assert.equal(quote.companyId, alpha.tenant.companyId);
      assert.equal(quote.paymentMethod, 'credit_card');
      assert.deepEqual(quote.coupon, { id: alpha.coupons.percent, code: 'TEN', discountCents: 1_000 });
      // 90,00 + 2,5% (2,25) + 0,50 = 92,75 → 3 installments of 30,92 (rounded up) = 92,76
      assert.deepEqual(
        [
          quote.baseCents,
          quote.totalCents,
          quote.interestCents,
          quote.fixedCents,
          quote.percentage,
          quote.installmentValueCents,
          quote.scheduleCents,
        ],
        [9_000, 9_276, 276, 50, 2.5, 3_092, [3_092, 3_092, 3_092]],
      );
    });

    test('an overdue charge: fine and late interest are part of the base', async () => {
      const uid = await insertOrder(database.db, alpha.tenant, {
        subtotalCents: 30_980,
        freightCents: 1_500,
        dueDate: '2026-03-05',
        planId: alpha.plans.boleto,
      });
      const quote = await quoteOption(database.db, { charge_id: uid }, `${alpha.plans.pix}-1`, NOW);
      assert.deepEqual(quote.overdue, { daysLate: 10, fineCents: 650, lateInterestCents: 108, extraCents: 758 });
      assert.equal(quote.totalCents, 33_238);
    });

    test('agrees with every option GET /payment_plans announces', async () => {
      const products = { [alpha.products.course]: 2, [alpha.products.ebook]: 1 };
      const query = `checkout_page_id=${alpha.page}&products[${alpha.products.course}]=2&products[${alpha.products.ebook}]=1&coupon=MINUS20`;
      const body = (
        await app.inject({ url: `/api/v1/payment_plans?${query}`, headers: { origin: 'https://alpha.example' } })
      ).json();
      const options = Object.values(body).flat() as { id: string; value: number; number: number }[];
      assert.equal(options.length, 8);
      for (const option of options) {
        const quote = await quoteOption(
          database.db,
          { checkout_page_id: alpha.page, products, coupon: 'MINUS20' },
          option.id,
          NOW,
        );
        assert.equal(quote.installmentValueCents / 100, option.value, option.id);
        assert.equal(quote.scheduleCents.length, option.number);
        assert.equal(
          quote.scheduleCents.reduce((a, b) => a + b, 0),
          quote.totalCents,
        );
      }
    });

    test('an option the context does not offer is refused', async () => {
      const query = { checkout_page_id: alpha.page, products: { [alpha.products.ebook]: 1 } };
      await assert.rejects(
        quoteOption(database.db, query, `${alpha.plans.deletedPlan}-1`, NOW),
        refused(/not offered/),
      );
      await assert.rejects(quoteOption(database.db, query, `${beta.plans.pix}-1`, NOW), refused(/not offered/));
      await assert.rejects(
        quoteOption(database.db, query, `${alpha.plans.card}-6`, NOW),
        refused(/6 installments are not available/),
      ); // below the minimum
      await assert.rejects(
        quoteOption(database.db, query, `${alpha.plans.pix}-2`, NOW),
        refused(/2 installments are not available/),
      );
      const cardOnly = { checkout_page_id: alpha.cardOnlyPage, products: { [alpha.products.course]: 1 } };
      await assert.rejects(quoteOption(database.db, cardOnly, `${alpha.plans.pix}-1`, NOW), refused(/not offered/));
    });

    test('the same context rules as the endpoint: products, coupons, context ids', async () => {
      await assert.rejects(
        quoteOption(database.db, { checkout_page_id: alpha.page }, `${alpha.plans.pix}-1`, NOW),
        refused(/products is required/),
      );
      const expired = { checkout_page_id: alpha.page, products: { [alpha.products.course]: 1 }, coupon: 'OLD' };
      await assert.rejects(quoteOption(database.db, expired, `${alpha.plans.pix}-1`, NOW), refused(/expired/));
      await assert.rejects(
        quoteOption(database.db, { cart_id: '00000000-0000-4000-8000-000000000000' }, `${alpha.plans.pix}-1`, NOW),
        refused(/cart_id/),
      );
      await assert.rejects(
        quoteOption(database.db, { products: { [alpha.products.course]: 1 } }, `${alpha.plans.pix}-1`, NOW),
        refused(/Send a context/),
      );
      const viaCompany = await quoteOption(
        database.db,
        { products: { [alpha.products.course]: 1 } },
        `${alpha.plans.pix}-1`,
        NOW,
        async () => ({ accountId: alpha.tenant.accountId, companyId: alpha.tenant.companyId }),
      );
      assert.equal(viaCompany.totalCents, 10_000);
    });

    test('option ids are `{plan_id}-{installments}`', () => {
      assert.deepEqual(parseOptionId('12-3'), { planId: 12, installments: 3 });
      for (const bad of ['12', '12-', '-3', '12-0', '0-1', '12-3x', '12-100', ' 12-3', '1.5-2']) {
        assert.throws(() => parseOptionId(bad), refused(/payment_plan_id must be/), bad);
      }
    });
  });
}
