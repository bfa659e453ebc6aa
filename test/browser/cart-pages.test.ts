import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import {
  fillCard,
  launchChromium,
  openTab,
  screenshot,
  useCheckoutServer,
  TEST_CARDS,
  type CheckoutServer,
} from '../support/browser.ts';
import { engines } from '../support/engines.ts';

const browser = await launchChromium();
after(() => browser.close());

for (const engine of engines()) {
  describe(`hosted cart pages: coupons priced by the cart, bought carts (${engine.name})`, () => {
    let database: Database;
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ database, server } = setup));

    async function cartLink(items: unknown[]): Promise<string> {
      const created = await fetch(`${server.origin}/api/v1/carts/${server.merchant.cart_pages.carrinho}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.merchant.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          payment_method: 'credit_card',
          customer: { email: 'cupom@example.com', name: 'Ana' },
          items,
        }),
      });
      assert.equal(created.status, 201);
      return ((await created.json()) as { link: string }).link;
    }

    async function applyCoupon(page: Page, code: string): Promise<void> {
      await page.getByLabel('Código do cupom').fill(code);
      const checked = page.waitForResponse((response) => response.url().includes(code));
      await page.getByRole('button', { name: 'Aplicar cupom' }).click();
      await checked;
    }

    test('a cart of custom lines takes an unrestricted coupon, priced by GET /payment_plans with the cart', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(await cartLink([{ name: 'Serviço sob medida', value: 200, quantity: 1 }]));
      await page.locator('#method-pix').waitFor();
      await applyCoupon(page, 'DEMO10');
      await page.locator('#coupon-status', { hasText: 'DEMO10' }).waitFor();
      assert.match(
        await page.locator('#coupon-status').innerText(),
        /^Cupom DEMO10 aplicado: R\$\s20,00 de desconto\.$/,
      );
      assert.equal(await page.locator('#coupon-error').isHidden(), true);
      assert.match(await page.locator('#total').innerText(), /^R\$\s180,00$/);
      assert.ok(
        !requests.some((request) => request.url.includes('/validate')),
        'a cart is not checked by the product-only coupon validation',
      );
      await page.getByLabel('Pix').check();
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pague com Pix' }).waitFor();
      const order = await database.db
        .selectFrom('orders')
        .select(['coupon_code', 'total_cents'])
        .where('customer_id', 'is not', null)
        .where('source', '=', 'cart')
        .executeTakeFirstOrThrow();
      assert.deepEqual(order, { coupon_code: 'DEMO10', total_cents: 18_000 });
      await screenshot(page, `${engine.name}-cart-custom-line-coupon`);
      await page.close();
    });

    test('a product-restricted coupon on a cart with a custom line is refused at its field; the total and plans stay usable', async () => {
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(
        await cartLink([
          { id: server.merchant.products.ebook, quantity: 1 },
          { name: 'Embalagem especial', value: 30, quantity: 1 },
        ]),
      );
      await page.locator('#method-pix').waitFor();
      await applyCoupon(page, 'SOEBOOK');
      await page.locator('#coupon-error:not([hidden]), #methods-error:not([hidden])').first().waitFor();
      assert.equal(await page.locator('#coupon-error').innerText(), 'Este cupom não vale para estes produtos.');
      assert.equal(await page.getByLabel('Código do cupom').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'coupon');
      assert.equal(await page.locator('#coupon-status').innerText(), '');
      assert.equal(await page.locator('#methods-error').isHidden(), true);
      assert.match(await page.locator('#total').innerText(), /^R\$\s79,90$/);
      await screenshot(page, `${engine.name}-cart-restricted-coupon`);

      await applyCoupon(page, 'DESCONTO20');
      await page.locator('#total', { hasText: '59,90' }).waitFor();
      assert.equal(await page.locator('#coupon-error').isHidden(), true);
      assert.equal(await page.locator('#form-errors').isHidden(), true);
      assert.match(
        await page.locator('#coupon-status').innerText(),
        /^Cupom DESCONTO20 aplicado: R\$\s20,00 de desconto\.$/,
      );
      await page.close();
    });

    test('a bought cart shows a status page instead of the form; a tab left open says so in Portuguese when paying', async () => {
      const link = await cartLink([{ id: server.merchant.products.ebook, quantity: 1 }]);
      const { page: stale } = await openTab(browser.context, server.origin);
      await stale.goto(link);
      await stale.locator('#method-pix').waitFor();

      const { page } = await openTab(browser.context, server.origin);
      await page.goto(link);
      await page.getByLabel('Cartão de crédito').check();
      await fillCard(page, TEST_CARDS.approved);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      await page.goto(link);
      assert.equal(await page.getByRole('heading', { level: 2 }).innerText(), 'Este carrinho já foi comprado');
      assert.equal(await page.getByRole('button', { name: 'Pagar' }).count(), 0);
      await screenshot(page, `${engine.name}-cart-bought`);
      await page.close();

      await stale.getByLabel('Pix').check();
      await stale.getByRole('button', { name: 'Pagar' }).click();
      const summary = stale.locator('#form-errors');
      await summary.waitFor();
      assert.match(await summary.innerText(), /Este pagamento não pode ser concluído agora\. Recarregue a página/);
      assert.doesNotMatch(await summary.innerText(), /already|paid|\(/);
      await stale.close();
    });
  });
}
