import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import {
  assertNoCardNumbers,
  fillCard,
  launchChromium,
  openTab,
  screenshot,
  useCheckoutServer,
  TEST_CARDS,
  type CheckoutServer,
} from '../support/browser.ts';
import { engines } from '../support/engines.ts';
import { insertPage, insertPlan } from '../support/pay-fixtures.ts';

const browser = await launchChromium();
after(() => browser.close());

/** "R$ 1.234,56" (any spacing) → cents. */
const cents = (text: string) => Math.round(Number(text.replace(/[^\d,]/g, '').replace(',', '.')) * 100);
const brl = (value: number) => `R$\u00a0${(value / 100).toFixed(2).replace('.', ',')}`;

/** Picks the option of a card's installments whose label starts with `prefix` ("6x", "À vista"). */
async function chooseInstallments(page: Page, index: 0 | 1, prefix: string): Promise<void> {
  const select = page.locator(`#card${index}-installments`);
  const option = select.locator('option', { hasText: new RegExp(`^${prefix}`) });
  await option.waitFor({ state: 'attached' });
  await select.selectOption((await option.getAttribute('value'))!);
}

for (const engine of engines()) {
  describe(`hosted checkout, two-card totals (${engine.name})`, () => {
    let database: Database;
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ database, server } = setup));
    const paymentsOf = (pageId: string) =>
      database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['p.status', 'p.amount_cents', 'p.installments'])
        .where('o.checkout_page_id', '=', pageId)
        .orderBy('p.id')
        .execute();

    async function startTwoCards(page: Page, pageId: string, email: string): Promise<void> {
      await page.goto(`${server.origin}/pay/${pageId}`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Cartão de crédito').check();
      await page.getByLabel('Pagar com dois cartões').check();
      await fillCard(page, TEST_CARDS.approved, 0);
      await fillCard(page, TEST_CARDS.approved, 1);
    }

    test('each card is quoted on its own share and the total follows both cards; the charges equal what was shown', async () => {
      const pageId = server.merchant.checkout_pages['two-cards']!;
      const { page, requests } = await openTab(browser.context, server.origin);
      await startTwoCards(page, pageId, 'split-total@example.com');
      await chooseInstallments(page, 0, '6x');
      await page.getByLabel('Valor neste cartão (R$)').fill('100,00');
      // R$ 297: card 0 pays R$ 197 in 6x at 2.59% (R$ 202,10, in 6 installments of 33,69 rounded up: 202,14),
      // card 1 R$ 100 at once.
      await page.locator('#total', { hasText: '302,14' }).waitFor();
      assert.equal(
        await page.locator('#card0-installments option:checked').innerText(),
        `6x de ${brl(3369)} com juros (total ${brl(20214)})`,
      );
      await page.getByLabel('Valor neste cartão (R$)').fill('150,00');
      await page.locator('#total', { hasText: '300,84' }).waitFor(); // R$ 147 in 6x (6 × 25,14) + R$ 150
      await page.getByLabel('Valor neste cartão (R$)').fill('100,00');
      await chooseInstallments(page, 1, '2x');
      await page.locator('#total', { hasText: '303,94' }).waitFor(); // 202,14 + R$ 100 in 2x at 1.79% (2 × 50,90)
      const shown = cents(await page.locator('#total').innerText());
      const labels = await Promise.all(
        [0, 1].map((index) => page.locator(`#card${index}-installments option:checked`).innerText()),
      );
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      const payments = await paymentsOf(pageId);
      assert.deepEqual(
        payments.map((payment) => [payment.status, payment.installments, payment.amount_cents]),
        [
          ['paid', 6, 20214],
          ['paid', 2, 10180],
        ],
      );
      assert.equal(
        payments.reduce((sum, payment) => sum + payment.amount_cents, 0),
        shown,
        'the cards were charged the total shown',
      );
      assert.deepEqual(labels, [
        `6x de ${brl(3369)} com juros (total ${brl(20214)})`,
        `2x de ${brl(5090)} com juros (total ${brl(10180)})`,
      ]);
      assertNoCardNumbers(requests);
      await screenshot(page, `${engine.name}-two-card-totals`);
      await page.close();
    });

    test('a plan with a fee at 1x: the split adds up to the total before fees and the payment is approved', async () => {
      const tenant = {
        accountId: server.merchant.account_id,
        companyId: server.merchant.companies['loja-demo']!,
        apiKey: '',
        slug: '',
      };
      const plan = await insertPlan(database.db, tenant, 'credit_card', {
        maxInstallments: 3,
        taxes: [
          { installments: 1, percentage: 2 },
          { installments: 2, percentage: 3 },
        ],
      });
      const pageId = await insertPage(database.db, tenant, {
        products: [server.merchant.products.course!],
        plans: [plan],
        enableTwoCards: true,
      });
      const { page, requests } = await openTab(browser.context, server.origin);
      await startTwoCards(page, pageId, 'fee-split@example.com');
      await page.getByLabel('Valor neste cartão (R$)').fill('40,00');
      // R$ 297 split 257 + 40, each with its 2% fee at 1x: 262,14 + 40,80.
      await page.locator('#total', { hasText: '302,94' }).waitFor();
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      const sent = JSON.parse(requests.find((request) => request.url.endsWith('/api/v1/payments'))!.body) as Record<
        string,
        unknown
      >;
      assert.deepEqual([sent.credit_card_0_amount, sent.credit_card_1_amount], [257, 40]);
      const payments = await paymentsOf(pageId);
      assert.deepEqual(
        payments.map((payment) => [payment.status, payment.amount_cents]),
        [
          ['paid', 26214],
          ['paid', 4080],
        ],
      );
      assert.equal(
        payments.reduce((sum, payment) => sum + payment.amount_cents, 0),
        cents(await page.locator('#total').innerText()),
      );
      await page.close();
    });

    test('the server-rendered total is the total the plans quote before interest (cart freight, overdue charge)', async () => {
      const accountId = server.merchant.account_id;
      const companyId = server.merchant.companies['loja-demo']!;
      const cartId = randomUUID();
      await database.db
        .insertInto('carts')
        .values({
          id: cartId,
          account_id: accountId,
          company_id: companyId,
          cart_page_id: server.merchant.cart_pages.carrinho!,
          payment_method: 'credit_card',
          freight_cents: 1_500,
          customer: JSON.stringify({ email: 'frete@example.com' }),
        })
        .execute();
      await database.db
        .insertInto('cart_items')
        .values({
          account_id: accountId,
          cart_id: cartId,
          product_id: server.merchant.products.ebook!,
          name: 'E-book',
          quantity: 2,
          unit_value_cents: 4_990,
          total_cents: 9_980,
        })
        .execute();
      const cases = [
        { url: `/pay/carts/${cartId}`, query: `cart_id=${cartId}`, expected: 11_480 },
        { url: `/pay/charges/${server.charges.overdue}`, query: `charge_id=${server.charges.overdue}` },
      ];
      for (const { url, query, expected } of cases) {
        const html = (await server.app.inject({ url })).body;
        const rendered = cents(/id="total"[^>]*>([^<]*)</.exec(html)![1]!);
        const plans = (
          await server.app.inject({ url: `/api/v1/payment_plans?${query}`, headers: { origin: server.origin } })
        ).json() as { pix: Array<{ value: number }> };
        const quoted = Math.round(plans.pix[0]!.value * 100); // the demo Pix plan has no fee
        assert.equal(rendered, quoted, url);
        if (expected !== undefined) assert.equal(rendered, expected, url);
      }
    });
  });
}
