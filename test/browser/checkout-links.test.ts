import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
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

const browser = await launchChromium();
after(() => browser.close());

for (const engine of engines()) {
  describe(`hosted cart and charge links (${engine.name})`, () => {
    let database: Database;
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ database, server } = setup));

    test('a cart link (POST /carts/{id}) shows the items and the prefilled buyer, and takes a card on gateway_b', async () => {
      const created = await fetch(`${server.origin}/api/v1/carts/${server.merchant.cart_pages.carrinho}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.merchant.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          payment_method: 'credit_card',
          customer: { email: 'carrinho@example.com', name: 'Ana' },
          items: [{ id: server.merchant.products.ebook, quantity: 2 }],
        }),
      });
      assert.equal(created.status, 201);
      const { link } = (await created.json()) as { link: string };
      assert.match(link, new RegExp(`^${server.origin}/pay/carts/[0-9a-f-]{36}$`));

      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(link);
      assert.equal(await page.locator('h1').innerText(), 'Seu carrinho');
      assert.match(await page.locator('ul.products').innerText(), /E-book Finanças Pessoais[\s\S]*× 2/);
      assert.equal(await page.getByLabel('E-mail').inputValue(), 'carrinho@example.com');
      await page.getByLabel('Cartão de crédito').check();
      await page.locator('#total', { hasText: '99,80' }).waitFor();
      await fillCard(page, TEST_CARDS.approved);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      const pay = requests.find((request) => request.url.endsWith('/pay'))!;
      assert.match(pay.body, /"confirmation_token_id":"ctoken_/);
      assertNoCardNumbers(requests);
      const order = await database.db
        .selectFrom('orders')
        .select(['status', 'total_cents'])
        .where('source', '=', 'cart')
        .executeTakeFirstOrThrow();
      assert.deepEqual(order, { status: 'paid', total_cents: 9980 });
      await screenshot(page, `${engine.name}-cart-paid`);
      await page.close();
    });

    test('a charge link takes a card and lands on the thank-you page', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(`${server.origin}/pay/charges/${server.charges.open}`);
      assert.match(await page.locator('ul.products').innerText(), /Curso Investimentos/);
      assert.match(await page.locator('main').innerText(), /Vencimento: \d\d\/\d\d\/\d{4}/);
      assert.equal(await page.getByLabel('E-mail').count(), 0, 'a charge already has its buyer');
      await page.getByLabel('Cartão de crédito').check();
      await fillCard(page, TEST_CARDS.approved);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.waitForURL(`${server.origin}/pay/charges/${server.charges.open}/done`);
      assert.equal(await page.getByRole('heading', { level: 2 }).innerText(), 'Pagamento confirmado');
      assert.match(await page.locator('main').innerText(), /R\$\s297,00 para Loja Demo LTDA foi confirmado/);
      assertNoCardNumbers(requests);
      await screenshot(page, `${engine.name}-charge-done`);
      await page.close();
    });

    test('unknown links answer a 404 page in Portuguese', async () => {
      const { page } = await openTab(browser.context, server.origin);
      for (const path of [
        '/pay/00000000-0000-4000-8000-000000000000',
        '/pay/carts/nao-existe',
        '/pay/charges/00000000-0000-4000-8000-000000000000',
      ]) {
        const response = await page.goto(`${server.origin}${path}`);
        assert.equal(response?.status(), 404, path);
        assert.equal(await page.getByRole('heading', { level: 2 }).innerText(), 'Página não encontrada');
      }
      await page.close();
    });
  });
}
