import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import { launchChromium, payWithCard, TEST_CARDS, useCheckoutServer, type CheckoutServer } from '../support/browser.ts';
import { engines } from '../support/engines.ts';
import { addDashboardUser, checkPage } from './browser-support.ts';

const OWNER = { email: 'dona@loja.example', password: 'uma senha forte o bastante' };
const FINANCE = { email: 'financeiro@loja.example', password: 'outra senha bem longa' };

for (const engine of engines()) {
  describe(`the dashboard in Chromium on ${engine.name}`, { timeout: 300_000 }, () => {
    let database: Database;
    let server: CheckoutServer;
    let browser: { context: BrowserContext; close(): Promise<void> };
    let page: Page;

    useCheckoutServer(engine, (setup) => ({ database, server } = setup), { worker: true });
    before(async () => {
      browser = await launchChromium();
      page = await browser.context.newPage();
      await page.setViewportSize({ width: 1280, height: 900 });
    });
    after(async () => browser?.close());

    const dashboard = (path = '') => `${server.origin}/dashboard${path}`;
    const signOut = async () => {
      await page.getByRole('button', { name: 'Sair', exact: true }).click();
      await page.getByRole('heading', { name: 'Entrar no painel' }).waitFor();
    };

    test('two buyers pay by card on the hosted checkout', async () => {
      const checkout = await browser.context.newPage();
      for (const email of ['ana@example.com', 'bruno@example.com']) {
        await payWithCard(
          checkout,
          `${server.origin}/pay/${server.merchant.checkout_pages.ebook}`,
          email,
          TEST_CARDS.approved,
        );
        await checkout
          .getByText(/Pagamento aprovado|aprovado/i)
          .first()
          .waitFor({ timeout: 30_000 });
      }
      await checkout.close();
    });

    test('the owner opens the one-time link of `users add`, chooses a password and lands on the home figures', async () => {
      const added = await addDashboardUser(database, server.origin, OWNER.email, 'owner');
      await page.goto(added.sign_in_url);
      await page.getByLabel('Escolha sua senha').fill(OWNER.password);
      await checkPage(page, 'link');
      await page.getByRole('button', { name: 'Continuar' }).click();
      await page.getByRole('heading', { name: 'Vendas' }).waitFor();
      await page.getByTestId('paid-orders').filter({ hasText: '2' }).waitFor();
      assert.match(await page.getByTestId('revenue').innerText(), /^R\$\s?\d/);
      await checkPage(page, 'home');
      await page.goto(added.sign_in_url);
      await page.getByText('Este link é desconhecido, já foi usado ou expirou.').waitFor();
    });

    test('sign out, then sign in with e-mail and password', async () => {
      await page.goto(dashboard());
      await signOut();
      await checkPage(page, 'sign-in');
      // English is one choice away, and back.
      await page.getByLabel('Idioma / Language').selectOption('en');
      await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
      await page.getByLabel('Idioma / Language').selectOption('pt-BR');
      await page.getByRole('heading', { name: 'Entrar no painel' }).waitFor();
      await page.getByLabel('Senha').fill('a wrong password');
      await page.getByLabel('E-mail').fill(OWNER.email);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: /wrong|senha/i })
        .waitFor();
      await page.getByLabel('Senha').fill(OWNER.password);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.getByRole('heading', { name: 'Vendas' }).waitFor();
    });

    test('the orders list filters through the URL; an order is refunded in part and its timeline shows who did it', async () => {
      await page.getByRole('link', { name: 'Pedidos' }).click();
      await page.getByRole('heading', { name: 'Pedidos' }).waitFor();
      await page.getByRole('table').getByRole('link').first().waitFor();
      await checkPage(page, 'orders');
      await page.getByLabel('Busca').fill('bruno');
      await page.getByRole('button', { name: 'Filtrar' }).click();
      await page.getByText('Pedidos encontrados: 1').waitFor();
      assert.match(page.url(), /\/dashboard\/orders\?q=bruno$/);
      // The URL is the filter: opening it anew gives the same list.
      await page.goto(page.url());
      await page.getByText('Pedidos encontrados: 1').waitFor();
      await page.getByRole('table').getByRole('link').first().click();
      await page.getByTestId('order-status').filter({ hasText: 'Pago' }).waitFor();
      await page.getByLabel('Valor a reembolsar (R$)').fill('10,00');
      await page.getByRole('button', { name: 'Revisar reembolso' }).click();
      await page.getByText('Confirmar reembolso de').waitFor();
      await checkPage(page, 'order-refund-confirm');
      await page.getByRole('button', { name: 'Confirmar' }).dblclick();
      await page.getByText('Reembolso feito.').waitFor();
      await page.getByTestId('order-refunded').filter({ hasText: '10,00' }).waitFor();
      await page.getByTestId('timeline').getByText(OWNER.email).waitFor();
      assert.equal(
        await page.getByTestId('timeline').getByText(OWNER.email).count(),
        1,
        'the double click refunded once',
      );
      assert.match(await page.getByTestId('order-status').innerText(), /Parcialmente reembolsado/);
      await checkPage(page, 'order');
    });

    test('a key rotation without grace shows the new key once; the old key is refused at once and the new one works', async () => {
      const oldKey = server.merchant.api_key!;
      await page.getByRole('link', { name: 'Desenvolvedores' }).click();
      await page.getByRole('heading', { name: 'Chaves de API' }).waitFor();
      await page.getByLabel('As chaves atuais expiram em').selectOption('0');
      await page.getByRole('button', { name: 'Rotacionar chaves' }).click();
      const newKey = await page.getByTestId('shown-once').innerText();
      assert.match(newKey, /^ck_[0-9a-f]{16}_/);
      await checkPage(page, 'developers');
      const orders = (key: string) =>
        fetch(`${server.origin}/api/v1/orders`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal((await orders(oldKey)).status, 401);
      assert.equal((await orders(newKey)).status, 200);
    });

    test('the owner invites a finance user, who signs in through the invite and sees no developer settings', async () => {
      await page.getByRole('link', { name: 'Usuários' }).click();
      await page.getByRole('heading', { name: 'Usuários' }).waitFor();
      await page.getByLabel('E-mail').fill(FINANCE.email);
      await page.locator('select[name="invite-role"]').selectOption('finance');
      await page.getByRole('button', { name: 'Convidar' }).click();
      const inviteUrl = await page.getByTestId('shown-once').innerText();
      assert.match(inviteUrl, /\/dashboard\/link#/);
      await checkPage(page, 'users');
      await page.getByRole('link', { name: 'Auditoria' }).click();
      await page.getByRole('cell', { name: 'refund.created' }).waitFor();
      await checkPage(page, 'audit');
      await signOut();
      await page.goto(inviteUrl);
      await page.getByLabel('Escolha sua senha').fill(FINANCE.password);
      await page.getByRole('button', { name: 'Continuar' }).click();
      await page.getByRole('heading', { name: 'Vendas' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Desenvolvedores' }).count(), 0);
      assert.match(await page.locator('.account .user').innerText(), /Financeiro/);
    });
  });
}
