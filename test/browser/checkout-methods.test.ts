import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import {
  assertNoCardNumbers,
  fillCard,
  fillPayer,
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
  describe(`hosted checkout page: pix, boleto, coupon, declined card (${engine.name})`, () => {
    let database: Database;
    let server: CheckoutServer;
    // As in `checkout serve`: the worker applies acknowledged webhooks, woken by the receiver in this process.
    useCheckoutServer(engine, (setup) => ({ database, server } = setup), { worker: true });
    const pageUrl = (slug: string) => `${server.origin}/pay/${server.merchant.checkout_pages[slug]}`;

    /** Confirms a pix at the sandbox, as the buyer's bank would: the sandbox delivers gateway_a's real webhook to POST /api/v1/webhooks, and the worker applies it. */
    async function confirmPix(gatewayId: string): Promise<void> {
      const confirmed = await fetch(
        `${server.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${gatewayId}/confirm`,
        { method: 'POST' },
      );
      assert.equal(confirmed.status, 200);
    }

    test('pix: the QR and a countdown show inline, the page polls and turns to paid by itself', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('E-mail').fill('pix@example.com');
      await page.getByLabel('Pix').check();
      assert.equal(await page.locator('#card-section').isHidden(), true);
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/payments'));
      await page.getByRole('button', { name: 'Pagar' }).click();
      const result = await (await answer).json();
      await page.getByRole('heading', { name: 'Pague com Pix' }).waitFor();
      assert.match(String(await page.locator('#pix-qr').getAttribute('src')), /^data:image\/png;base64,iVBOR/);
      assert.match(await page.locator('#pix-countdown').innerText(), /^Expira em (29|30):\d\d$/);
      await page.waitForRequest((request) => request.url().includes('/pay/status/'));
      assert.equal(await page.locator('#pix-status').innerText(), 'Aguardando pagamento…');
      await screenshot(page, `${engine.name}-pix-waiting`);

      await confirmPix(result.payments[0]);
      await page.getByRole('heading', { name: 'Pagamento confirmado' }).waitFor({ timeout: 10_000 });
      assert.equal(await page.locator('#pix-status').innerText(), 'Pago! Recebemos o seu Pix.');
      assert.equal(await page.locator('#pix-qr').isHidden(), true);
      assert.equal(await page.locator('#live-status').innerText(), 'Pagamento confirmado.');
      assert.ok(
        requests.filter((request) => request.url.includes('/pay/status/')).length >= 2,
        'the page polled the status',
      );
      await screenshot(page, `${engine.name}-pix-paid`);
      await page.close();
    });

    test('boleto: the page links the printable boleto', async () => {
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('E-mail').fill('boleto@example.com');
      await page.getByLabel('Boleto bancário').check();
      await fillPayer(page);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Boleto gerado' }).waitFor();
      const href = await page.getByRole('link', { name: 'Abrir o boleto para imprimir' }).getAttribute('href');
      assert.match(String(href), new RegExp(`^${server.origin}/pay/boleto/[0-9a-f-]{36}$`));
      const printable = await fetch(href!);
      assert.equal(printable.status, 200);
      await screenshot(page, `${engine.name}-boleto`);
      await page.close();
    });

    test('coupon: a wrong code is announced at its field, a valid one lowers the total and the charge', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('Cartão de crédito').check();
      await page.getByLabel('Código do cupom').fill('NAOEXISTE');
      await page.getByRole('button', { name: 'Aplicar cupom' }).click();
      await page.locator('#coupon-error').waitFor();
      assert.equal(await page.locator('#coupon-error').innerText(), 'Cupom não encontrado.');
      assert.equal(await page.getByLabel('Código do cupom').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'coupon');
      assert.equal(
        await page
          .getByRole('alert')
          .innerText()
          .then((text) => text.includes('Cupom não encontrado.')),
        true,
      );

      await page.getByLabel('Código do cupom').fill('demo10');
      await page.getByRole('button', { name: 'Aplicar cupom' }).click();
      await page.locator('#coupon-status', { hasText: 'DEMO10' }).waitFor();
      assert.equal(await page.locator('#coupon-status').innerText(), 'Cupom DEMO10 aplicado: 10% de desconto.');
      await page.locator('#total', { hasText: '44,91' }).waitFor();
      await page.getByLabel('E-mail').fill('cupom@example.com');
      await fillCard(page, TEST_CARDS.approved);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      const order = await database.db
        .selectFrom('orders')
        .select(['status', 'coupon_code', 'total_cents'])
        .where('coupon_code', '=', 'DEMO10')
        .executeTakeFirstOrThrow();
      assert.deepEqual(order, { status: 'paid', coupon_code: 'DEMO10', total_cents: 4491 });
      assertNoCardNumbers(requests);
      await screenshot(page, `${engine.name}-coupon`);
      await page.close();
    });

    test('a declined card is announced and focused; a retry with another card is approved', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await payWithCard(page, pageUrl('ebook'), 'recusado@example.com', TEST_CARDS.declined);
      await page.locator('#card0-number-error').waitFor();
      assert.equal(
        await page.locator('#card0-number-error').innerText(),
        'O cartão foi recusado pelo banco emissor. Confira os dados ou use outro cartão.',
      );
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'card0-number');
      assert.match(await page.getByRole('alert').innerText(), /recusado/);
      await screenshot(page, `${engine.name}-card-declined`);

      await page.locator('#card0').getByLabel('Número do cartão').fill(TEST_CARDS.approved);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      assert.equal(requests.filter((request) => request.url.endsWith('/api/v1/payments')).length, 2);
      assertNoCardNumbers(requests);
      await screenshot(page, `${engine.name}-card-retried`);
      await page.close();
    });
  });
}
