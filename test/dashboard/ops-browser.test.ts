import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import { totpAt } from '../../src/modules/dashboard/totp.ts';
import type { Tenant } from '../support/app.ts';
import { launchChromium, payWithCard, TEST_CARDS, useCheckoutServer, type CheckoutServer } from '../support/browser.ts';
import { engines } from '../support/engines.ts';
import { insertOrder } from '../support/records-fixtures.ts';
import { addDashboardUser, checkPage, signInFirstTime } from './browser-support.ts';
import { insertSubscriber } from './ops-fixtures.ts';

const OWNER = { email: 'gerente@loja.example', password: 'uma senha forte o bastante' };
const HOUR_MS = 3_600_000;

/** A merchant's notification receiver on a real local port: it records each request and answers 200. */
async function startReceiver() {
  const received: Array<{ type: string; body: string }> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ type: String(request.headers['checkout-event-type']), body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/checkout-events`,
    received,
    close: () => new Promise((r) => server.close(r)),
  };
}

for (const engine of engines()) {
  describe(
    `dashboard customers, order actions, deliveries and security in Chromium on ${engine.name}`,
    { timeout: 300_000 },
    () => {
      let database: Database;
      let server: CheckoutServer;
      let browser: { context: BrowserContext; close(): Promise<void> };
      let page: Page;
      let receiver: Awaited<ReturnType<typeof startReceiver>>;
      let shop: Tenant;
      // The app's clock: moved forward to end a key's grace period without waiting.
      let offsetMs = 0;

      useCheckoutServer(engine, (setup) => ({ database, server } = setup), {
        worker: true,
        privateNotifications: true,
        clock: () => new Date(Date.now() + offsetMs),
      });
      before(async () => {
        receiver = await startReceiver();
        browser = await launchChromium();
        page = await browser.context.newPage();
        await page.setViewportSize({ width: 1280, height: 900 });
      });
      after(async () => {
        await browser?.close();
        await receiver?.close();
      });

      const dashboard = (path = '') => `${server.origin}/dashboard${path}`;
      const navLink = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true });

      test('the owner signs in through a one-time link', async () => {
        shop = {
          accountId: server.merchant.account_id,
          companyId: server.merchant.companies['loja-demo']!,
          slug: 'demo',
          apiKey: server.merchant.api_key!,
        };
        const added = await addDashboardUser(database, server.origin, OWNER.email, 'owner');
        await signInFirstTime(page, added.sign_in_url, OWNER.password);
      });

      test('add a notification endpoint and see its delivery after a payment', async () => {
        await navLink('Desenvolvedores').click();
        await page.getByLabel('URL').fill(receiver.url);
        await page.getByRole('button', { name: 'Adicionar endpoint' }).click();
        await page.getByText('Copie agora: este segredo não será exibido de novo.').waitFor();
        const checkout = await browser.context.newPage();
        await payWithCard(
          checkout,
          `${server.origin}/pay/${server.merchant.checkout_pages.ebook}`,
          'carla@example.com',
          TEST_CARDS.approved,
        );
        await checkout
          .getByText(/Pagamento aprovado|aprovado/i)
          .first()
          .waitFor({ timeout: 30_000 });
        await checkout.close();
        await page.getByRole('button', { name: 'Ver entregas' }).click();
        const delivered = page
          .getByTestId('deliveries')
          .getByTestId('delivery-status')
          .filter({ hasText: 'entregue · HTTP 200' });
        for (let tries = 0; tries < 60 && (await delivered.count()) === 0; tries += 1) {
          await page.waitForTimeout(500);
          await page.getByRole('button', { name: 'Atualizar' }).click();
        }
        await delivered.first().waitFor();
        await page.getByTestId('deliveries').getByText('order.paid', { exact: true }).waitFor();
        assert.ok(receiver.received.some((request) => request.type === 'order.paid'));
        await page.getByText('Requisição enviada').first().click();
        await page.getByTestId('deliveries').locator('pre', { hasText: '"type":"order.paid"' }).first().waitFor();
        await checkPage(page, 'deliveries');
      });

      test('customers are found by e-mail; the paid order resends its notification and copies its link', async () => {
        await navLink('Clientes').click();
        await page.getByRole('heading', { name: 'Clientes' }).waitFor();
        await checkPage(page, 'customers');
        await page.getByLabel('Busca').fill('carla@');
        await page.getByRole('button', { name: 'Filtrar' }).click();
        await page.getByText('Clientes encontrados: 1').waitFor();
        assert.match(page.url(), /\/dashboard\/customers\?q=carla%40$/);
        await page.getByRole('table').getByRole('link').first().click();
        await page.getByRole('heading', { name: 'Pedidos' }).waitFor();
        await checkPage(page, 'customer');
        await page.locator('.card.wide').getByRole('link').first().click();
        await page.getByTestId('order-status').filter({ hasText: 'Pago' }).waitFor();
        assert.equal(
          await page.getByRole('button', { name: 'Cancelar pedido' }).count(),
          0,
          'a paid order offers no cancel',
        );
        await page.getByRole('button', { name: 'Reenviar notificação' }).click();
        await page
          .getByTestId('order-action-message')
          .filter({ hasText: 'Notificação reenviada: order.paid' })
          .waitFor();
        await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
        await page.getByRole('button', { name: 'Copiar link de cobrança' }).click();
        await page.getByTestId('order-action-message').filter({ hasText: 'Link de cobrança copiado.' }).waitFor();
        assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^http:\/\/127\.0\.0\.1:\d+\//);
        await checkPage(page, 'order-actions');
        await page.getByTestId('timeline').getByText('order.notification_resent').waitFor();
      });

      test('an unpaid order is cancelled after a confirmation; the timeline names who did it', async () => {
        const unpaid = await insertOrder(database, shop, { status: 'waiting_payment', items: [{ name: 'Curso' }] });
        await page.goto(dashboard(`/orders/${unpaid.id}`));
        await page.getByRole('button', { name: 'Cancelar pedido' }).click();
        await page.getByText('Cancelar este pedido não pago?').waitFor();
        await checkPage(page, 'order-cancel-confirm');
        await page.getByRole('button', { name: 'Sim, cancelar pedido' }).click();
        await page.getByTestId('order-status').filter({ hasText: 'Cancelado' }).waitFor();
        await page.getByTestId('timeline').getByText(`dashboard: cancelled by ${OWNER.email}`).waitFor();
      });

      test("a subscription's page shows its failed renewal and is cancelled after a confirmation", async () => {
        const subscriber = await insertSubscriber(database, shop);
        await page.goto(dashboard(`/customers/${subscriber.customerId}`));
        await page.getByRole('heading', { name: 'Joana Assinante' }).waitFor();
        await page.getByRole('link', { name: /R\$\s?49,90/ }).click();
        await page.getByTestId('subscription-status').filter({ hasText: 'Em atraso' }).waitFor();
        await checkPage(page, 'subscription');
        await page.getByRole('button', { name: 'Cancelar assinatura' }).click();
        await page.getByText('Cancelar esta assinatura?').waitFor();
        await page.getByRole('button', { name: 'Sim, cancelar assinatura' }).click();
        await page.getByTestId('subscription-status').filter({ hasText: 'Cancelada' }).waitFor();
        assert.equal(await page.getByTestId('next-renewal').innerText(), '—');
        await checkPage(page, 'subscription-cancelled');
      });

      test('enable TOTP from the QR page, sign out, and sign in with the code', async () => {
        await navLink('Segurança').click();
        await page.getByRole('button', { name: 'Configurar aplicativo autenticador' }).click();
        const secret = await page.getByTestId('totp-secret').innerText();
        assert.match(
          (await page.getByRole('img', { name: 'QR code para o aplicativo autenticador' }).getAttribute('src')) ?? '',
          /^data:image\/png;base64,/,
        );
        await checkPage(page, 'security-setup');
        await page.getByLabel('Código de 6 dígitos do aplicativo').fill(totpAt(secret, new Date()));
        await page.getByRole('button', { name: 'Ativar' }).click();
        await page.getByTestId('totp-state').filter({ hasText: 'ativada' }).waitFor();
        await checkPage(page, 'security-enabled');
        await page.getByRole('button', { name: 'Sair', exact: true }).click();
        await page.getByLabel('E-mail').fill(OWNER.email);
        await page.getByLabel('Senha').fill(OWNER.password);
        await page.getByRole('button', { name: 'Entrar' }).click();
        await page.getByLabel('Código do aplicativo autenticador').fill(totpAt(secret, new Date()));
        await checkPage(page, 'sign-in-totp');
        await page.getByRole('button', { name: 'Entrar' }).click();
        // Signed in again on the page it signed out from.
        await page.getByTestId('totp-state').filter({ hasText: 'ativada' }).waitFor();
      });

      test('rotate a key with an hour of grace: the old key works until the grace period ends, then is refused', async () => {
        const oldKey = server.merchant.api_key!;
        await navLink('Desenvolvedores').click();
        await page.getByLabel('As chaves atuais expiram em').selectOption('3600');
        await page.getByRole('button', { name: 'Rotacionar chaves' }).click();
        const newKey = await page.getByTestId('shown-once').innerText();
        const orders = (key: string) =>
          fetch(`${server.origin}/api/v1/orders`, { headers: { authorization: `Bearer ${key}` } });
        assert.equal((await orders(oldKey)).status, 200);
        offsetMs = HOUR_MS + 60_000;
        assert.equal((await orders(oldKey)).status, 401);
        assert.equal((await orders(newKey)).status, 200);
      });

      test('support reads subscriptions and orders but is offered none of their actions', async () => {
        const added = await addDashboardUser(
          database,
          server.origin,
          'suporte@loja.example',
          'support',
          new Date(Date.now() + offsetMs),
        );
        await page.getByRole('button', { name: 'Sair', exact: true }).click();
        await signInFirstTime(page, added.sign_in_url, 'outra frase bem comprida');
        const subscriber = await insertSubscriber(database, shop, 'Sofia Suporte');
        await page.goto(dashboard(`/subscriptions/${subscriber.subscriptionId}`));
        await page.getByTestId('subscription-status').filter({ hasText: 'Em atraso' }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Cancelar assinatura' }).count(), 0);
        const unpaid = await insertOrder(database, shop, { status: 'pending' });
        await page.goto(dashboard(`/orders/${unpaid.id}`));
        await page.getByTestId('order-status').waitFor();
        assert.equal(await page.getByRole('heading', { name: 'Ações' }).count(), 0);
        assert.equal(await page.getByRole('button', { name: 'Cancelar pedido' }).count(), 0);
        await checkPage(page, 'order-support');
      });
    },
  );
}
