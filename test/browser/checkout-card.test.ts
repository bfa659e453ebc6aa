import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import {
  assertNoCardNumbers,
  payWithCard,
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
  describe(`hosted checkout page, card on gateway_a (${engine.name})`, () => {
    let database: Database;
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ database, server } = setup));
    const pageUrl = (slug: string) => `${server.origin}/pay/${server.merchant.checkout_pages[slug]}`;

    test('renders branding, products, methods and installments in pt-BR, with a CSP nonce and noindex', async () => {
      const { page } = await openTab(browser.context, server.origin);
      const response = await page.goto(pageUrl('ebook'));
      assert.equal(response?.status(), 200);
      const csp = response!.headers()['content-security-policy']!;
      assert.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]+'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.equal(await page.getAttribute('html', 'lang'), 'pt-BR');
      assert.equal(await page.locator('meta[name=robots]').getAttribute('content'), 'noindex');
      assert.equal(await page.locator('h1').textContent(), 'E-book Finanças Pessoais');
      assert.equal(
        await page.getByRole('link', { name: 'Ajuda' }).getAttribute('href'),
        'https://loja.demo.localhost/ajuda',
      );
      assert.match(await page.locator('ul.products').innerText(), /E-book Finanças Pessoais[\s\S]*R\$\s49,90/);
      await page.getByLabel('Cartão de crédito').check();
      const options = await page.locator('#card0-installments option').allInnerTexts();
      assert.equal(options[0], 'À vista: R$\u00a049,90');
      assert.ok(options.length > 1, 'installments are offered');
      assert.equal(await page.locator('#total').innerText(), 'R$\u00a049,90');
      for (const label of ['E-mail', 'Pix', 'Boleto bancário', 'Número do cartão', 'Parcelas'])
        assert.equal(await page.getByLabel(label).count(), 1, label);
      await screenshot(page, `${engine.name}-page-rendered`);
      await page.close();
    });

    test('a card approved on gateway_a: the card goes only to the tokenizer, the page says approved', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await payWithCard(page, pageUrl('ebook'), 'comprador@example.com', TEST_CARDS.approved);
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      assert.match(await page.locator('#result').innerText(), /Tudo certo: seu pedido está confirmado\./);
      assert.equal(await page.locator('#receipt-amount').innerText(), 'R$\u00a049,90');
      assert.equal(await page.locator('#receipt-method').innerText(), 'Cartão de crédito, à vista');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'result');
      assert.ok(
        requests.some(
          (request) => request.url.endsWith('/api/v1/payments') && request.body.includes('"credit_card_0_token":"tok_'),
        ),
      );
      assertNoCardNumbers(requests);
      const order = await database.db
        .selectFrom('orders')
        .select('status')
        .where('checkout_page_id', '=', server.merchant.checkout_pages.ebook!)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(order.status, 'paid');
      await screenshot(page, `${engine.name}-card-approved`);
      await page.close();
    });
  });
}
