import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { verifyOfferToken } from '../../../src/modules/payments/settlement/upsell-offer-token.ts';
import { createTenant } from '../../support/app.ts';
import { engines } from '../../support/engines.ts';
import {
  CARDS,
  insertPage,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

for (const engine of engines()) {
  describe(`two-card split, upsell offers, redirects and validation on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let splitPage: string;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      splitPage = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.cardPlanId, merchant.pixPlanId],
        enableTwoCards: true,
      });
    });

    const post = (payload: Record<string, unknown>, headers: Record<string, string> = ORIGIN) =>
      pay.app.inject({ method: 'POST', url: '/api/v1/payments', headers, payload });
    const base = (pageId: string) => ({
      checkout_page_id: pageId,
      products: [{ id: merchant.productId, quantity: 1 }],
      customer_email: 'split@example.com',
    });
    const split = async (first: string, second: string, amounts: [number, number] = [60, 40]) => ({
      ...base(splitPage),
      payment_plan_id: `${merchant.cardPlanId}-1`,
      credit_card_0_token: await tokenA(pay.sandboxes, first),
      credit_card_0_amount: amounts[0],
      credit_card_0_payment_plan: `${merchant.cardPlanId}-2`,
      credit_card_1_token: await tokenA(pay.sandboxes, second),
      credit_card_1_amount: amounts[1],
      credit_card_1_payment_plan: `${merchant.cardPlanId}-1`,
    });

    test('a split pays both cards, each share quoted on its own plan; the order is paid once both are', async () => {
      const res = await post(await split(CARDS.approved, CARDS.approved));
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().order_status, 'paid');
      assert.equal(res.json().payments.length, 2);
      const rows = await database.db
        .selectFrom('payments')
        .select(['card_index', 'amount_cents', 'interest_cents', 'installments', 'status'])
        .where('gateway_id', 'in', res.json().payments)
        .orderBy('card_index')
        .execute();
      assert.deepEqual(rows, [
        { card_index: 0, amount_cents: 6_150, interest_cents: 150, installments: 2, status: 'paid' }, // R$ 60,00 + 2.5%
        { card_index: 1, amount_cents: 4_000, interest_cents: 0, installments: 1, status: 'paid' },
      ]);
    });

    test('card 1 declined: card 0 is voided at the gateway, recorded refunded, and the order is not paid', async () => {
      const res = await post(await split(CARDS.approved, CARDS.declined));
      assert.equal(res.statusCode, 422, res.body);
      const rows = await database.db
        .selectFrom('payments')
        .select(['id', 'card_index', 'status', 'gateway_id', 'order_id'])
        .orderBy('id', 'desc')
        .limit(2)
        .execute();
      const [second, first] = rows;
      assert.equal(first!.status, 'refunded');
      assert.equal(second!.status, 'failed');
      const charge = await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/charges/${first!.gateway_id}`, {
        headers: { authorization: `Basic ${Buffer.from('sk_test_pay_a:').toString('base64')}` },
      });
      assert.equal(((await charge.json()) as { status: string }).status, 'canceled');
      const order = await database.db
        .selectFrom('orders')
        .select(['status', 'paid_at'])
        .where('id', '=', first!.order_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(order, { status: 'pending', paid_at: null });
      const causes = await database.db
        .selectFrom('order_events')
        .select('cause')
        .where('payment_id', '=', first!.id)
        .execute();
      assert.ok(causes.some((event) => /split compensation/.test(event.cause)));
    });

    test('split amounts that do not add up to the total, or a split on a page without it, are refused before any charge', async () => {
      const count = async () =>
        (
          await database.db
            .selectFrom('payments')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n;
      const before = Number(await count());
      const wrong = await post(await split(CARDS.approved, CARDS.approved, [60, 30]));
      assert.equal(wrong.statusCode, 422);
      const notEnabled = await post({
        ...(await split(CARDS.approved, CARDS.approved)),
        checkout_page_id: merchant.pageId,
      });
      assert.equal(notEnabled.statusCode, 422);
      assert.equal(Number(await count()), before);
    });

    test('a page with an upsell and a redirect: offer (signed, purpose-bound, stored) and redirect_url only when the card is paid', async () => {
      const pageId = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.cardPlanId, merchant.pixPlanId],
        upsellProductId: merchant.upsellProductId,
        redirectUrl: 'https://shop.example/next',
      });
      const res = await post({
        ...base(pageId),
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: await tokenA(pay.sandboxes),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().redirect_url, 'https://shop.example/next');
      const verified = verifyOfferToken(pay.config.masterKey, res.json().offer, new Date());
      assert.ok(verified);
      const offer = await database.db
        .selectFrom('upsell_offers')
        .selectAll()
        .where('id', '=', verified.offerId)
        .executeTakeFirstOrThrow();
      assert.equal(offer.product_id, merchant.upsellProductId);
      assert.equal(offer.consumed_at, null);
      assert.equal(
        verifyOfferToken(
          pay.config.masterKey,
          res.json().offer.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')),
          new Date(),
        ),
        undefined,
      );
      const saved = await database.db
        .selectFrom('saved_payment_methods')
        .select(['gateway_reference_encrypted'])
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      assert.match(saved.gateway_reference_encrypted, /^v1\./);
      const pix = await post({ ...base(pageId), payment_plan_id: `${merchant.pixPlanId}-1` });
      assert.equal(pix.statusCode, 200);
      assert.equal('offer' in pix.json(), false);
      assert.equal(pix.json().redirect_url, 'https://shop.example/next');
    });

    test('tampering: a client amount that disagrees, a plan the page does not offer, unknown fields, both token and card id', async () => {
      const token = await tokenA(pay.sandboxes);
      const tampered = await post({
        ...base(merchant.pageId),
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: token,
        credit_card_0_amount: 1,
      });
      assert.equal(tampered.statusCode, 422);
      const otherPlan = await createTenant(database);
      const foreign = await post({ ...base(merchant.pageId), payment_plan_id: `99999-1` });
      assert.equal(foreign.statusCode, 422);
      assert.ok(otherPlan);
      assert.equal(
        (await post({ ...base(merchant.pageId), payment_plan_id: `${merchant.pixPlanId}-1`, amount: 1 })).statusCode,
        422,
      );
      const both = await post({
        ...base(merchant.pageId),
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_token: token,
        credit_card_0_card_id: crypto.randomUUID(),
      });
      assert.equal(both.statusCode, 422);
      const unknownSaved = await post({
        ...base(merchant.pageId),
        payment_plan_id: `${merchant.cardPlanId}-1`,
        credit_card_0_card_id: crypto.randomUUID(),
      });
      assert.equal(unknownSaved.statusCode, 422);
      assert.equal(unknownSaved.json().details[0].field, 'body/credit_card_0_card_id');
      const noCustomer = await post({
        checkout_page_id: merchant.pageId,
        products: [{ id: merchant.productId, quantity: 1 }],
        payment_plan_id: `${merchant.pixPlanId}-1`,
      });
      assert.equal(noCustomer.statusCode, 422);
      const gatewayC = await post({
        ...base(merchant.pageId),
        payment_plan_id: `${merchant.pixPlanId}-1`,
        gateway: 'gateway_c',
      });
      assert.equal(gatewayC.statusCode, 422);
    });

    test('cross-account: an origin of another account is a 403; no origin at all is a 403', async () => {
      await createTenant(database, { allowedHosts: ['intruder.example'] });
      const payload = { ...base(merchant.pageId), payment_plan_id: `${merchant.pixPlanId}-1` };
      assert.equal((await post(payload, { origin: 'https://intruder.example' })).statusCode, 403);
      assert.equal((await post(payload, {})).statusCode, 403);
    });
  });
}
