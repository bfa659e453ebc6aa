import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { findUnstorableInput } from '../../src/http/input-guard.ts';
import { createUpsellOffer } from '../../src/modules/payments/settlement/upsell-offer-token.ts';
import { bearer } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { insertCart, ORIGIN, type Merchant, type PayApp, usePayMerchant } from '../support/pay-fixtures.ts';
import { paidCardOrder } from '../payments/refunds/refund-fixtures.ts';

describe('findUnstorableInput: unpaired UTF-16 surrogates', () => {
  test('a lone high or low surrogate, in a value or a key, at any depth, is found', () => {
    assert.equal(findUnstorableInput({ meta: { k: 'a\ud800' } }, 'body')?.field, 'body/meta/k');
    assert.equal(findUnstorableInput({ meta: { k: '\udc00b' } }, 'body')?.field, 'body/meta/k');
    assert.equal(findUnstorableInput({ list: [['x', '\udbff']] }, 'body')?.field, 'body/list/0/1');
    assert.equal(findUnstorableInput({ meta: { '\ud800': 'v' } }, 'body')?.field, 'body/meta');
    assert.match(findUnstorableInput('\ud800\ud800', 'body')!.message, /unpaired UTF-16 surrogate/);
    assert.match(
      findUnstorableInput({ meta: { '\ud800': 'v' } }, 'body')!.message,
      /key with an unpaired UTF-16 surrogate/,
    );
  });

  test('surrogate pairs (emoji, astral letters) are ordinary text', () => {
    assert.equal(findUnstorableInput({ meta: { '🎉': '𝕳𝖊𝖑𝖑𝖔 👩‍👩‍👧', k: '\udbff\udfff' } }, 'body'), undefined);
  });
});

for (const engine of engines()) {
  describe(`an unpaired surrogate in a JSON body on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (url: string, payload: Record<string, unknown>, headers: Record<string, string> = ORIGIN) =>
      pay.app.inject({ method: 'POST', url: `/api/v1${url}`, headers, payload });
    const checkoutBody = (meta: Record<string, unknown>) => ({
      checkout_page_id: merchant.pageId,
      main_product_id: merchant.productId,
      customer_email: 'sur@example.com',
      payment_plan_id: `${merchant.pixPlanId}-1`,
      meta,
    });
    const orderCount = async () =>
      Number(
        (
          await database.db
            .selectFrom('orders')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('account_id', '=', merchant.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const assertRefused = (res: { statusCode: number; body: string; json(): any }, field: string) => {
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().code, 'validation_failed');
      assert.match(res.json().message, /unpaired UTF-16 surrogate/);
      assert.equal(res.json().details[0].field, field);
    };

    test('POST /payments: in a meta value or key → 422 before anything is stored; a well-formed emoji is accepted', async () => {
      const before = await orderCount();
      assertRefused(await post('/payments', checkoutBody({ k: '\ud800' })), 'body/meta/k');
      assertRefused(await post('/payments', checkoutBody({ 'k\udc00': 'v' })), 'body/meta');
      assertRefused(await post('/payments', { ...checkoutBody({}), observation: 'x\udfff' }), 'body/observation');
      assert.equal(await orderCount(), before);
      const emoji = await post('/payments', checkoutBody({ '🎉': 'festa 👩‍👩‍👧' }));
      assert.equal(emoji.statusCode, 200, emoji.body);
      const order = await database.db
        .selectFrom('orders')
        .select('meta')
        .where('account_id', '=', merchant.accountId)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.deepEqual(order.meta, { '🎉': 'festa 👩‍👩‍👧' });
    });

    test('cart creation and cart pay → 422, no cart and no order', async () => {
      const cartId = await insertCart(database, merchant);
      const { cart_page_id: cartPageId } = await database.db
        .selectFrom('carts')
        .select('cart_page_id')
        .where('id', '=', cartId)
        .executeTakeFirstOrThrow();
      const carts = async () =>
        (await database.db.selectFrom('carts').select('id').where('cart_page_id', '=', cartPageId).execute()).length;
      assertRefused(
        await post(`/carts/${cartPageId}`, { payment_method: 'pix', meta: { k: '\ud800' } }, bearer(merchant.apiKey)),
        'body/meta/k',
      );
      assertRefused(
        await post(
          `/carts/${cartPageId}`,
          { payment_method: 'pix', items: [{ name: 'Livro \udbff', value: 10 }] },
          bearer(merchant.apiKey),
        ),
        'body/items/0/name',
      );
      assert.equal(await carts(), 1);
      const before = await orderCount();
      assertRefused(
        await post(`/carts/${cartId}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1`, meta: { k: '\ud800' } }),
        'body/meta/k',
      );
      assert.equal(await orderCount(), before);
    });

    test('POST /upsell: refused before the handler, so the offer is not spent and still redeems', async () => {
      const paid = await paidCardOrder(pay, database, merchant);
      const original = await database.db
        .selectFrom('orders')
        .select('id')
        .where('uid', '=', paid.orderUid)
        .executeTakeFirstOrThrow();
      const offer = await createUpsellOffer(database.db, pay.config.masterKey, {
        accountId: merchant.accountId,
        orderId: original.id,
        productId: merchant.upsellProductId,
        now: new Date(),
      });
      for (const meta of [{ k: '\ud800' }, { '\udc00': 'v' }]) {
        const res = await post('/upsell', { offer, meta }, {});
        assert.equal(res.statusCode, 422, res.body);
        assert.equal(res.json().code, 'validation_failed');
      }
      const row = await database.db
        .selectFrom('upsell_offers')
        .select('consumed_at')
        .where('order_id', '=', original.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.consumed_at, null);
      const redeemed = await post('/upsell', { offer, meta: { k: 'ok' } }, {});
      assert.equal(redeemed.statusCode, 200, redeemed.body);
    });
  });
}
