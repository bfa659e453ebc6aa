import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
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
import { readQrCode } from '../support/barcode-reader.ts';
import { engines } from '../support/engines.ts';

const browser = await launchChromium();
after(() => browser.close());

const brl = (cents: number) => `R$\u00a0${(cents / 100).toFixed(2).replace('.', ',')}`;

for (const engine of engines()) {
  describe(`Pix copy-and-paste and the success views (${engine.name})`, () => {
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ server } = setup), { worker: true });
    const pageUrl = (slug: string) => `${server.origin}/pay/${server.merchant.checkout_pages[slug]}`;
    const confirm = async (gatewayId: string) => {
      const confirmed = await fetch(
        `${server.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${gatewayId}/confirm`,
        { method: 'POST' },
      );
      assert.equal(confirmed.status, 200);
    };

    /** The Pix's QR, decoded from a screenshot of the page, and the code in its copy-and-paste field. */
    async function qrAndCode(page: Page): Promise<{ decoded: string; code: string }> {
      await page.locator('#pix-code').waitFor();
      const qr = page.locator('#pix-qr');
      // The image is decoded before the shot, and the shot keeps a white margin around it as a quiet zone.
      await qr.evaluate((image: HTMLImageElement) => image.decode());
      const box = (await qr.boundingBox())!;
      const margin = 16;
      const clip = {
        x: box.x - margin,
        y: box.y - margin,
        width: box.width + 2 * margin,
        height: box.height + 2 * margin,
      };
      // The page draws the QR at a whole number of pixels a module, so the 1x screenshot reads as it is.
      const decoded = readQrCode(await page.screenshot({ clip }));
      return { decoded, code: await page.locator('#pix-code').inputValue() };
    }

    test('checkout pix: QR, the code to copy, amount, countdown and one status; once paid, the receipt', async () => {
      await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('E-mail').fill('pix-copia@example.com');
      await page.getByLabel('Pix').check();
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/payments'));
      await page.getByRole('button', { name: 'Pagar' }).click();
      const result = await (await answer).json();
      await page.getByRole('heading', { name: 'Pague com Pix' }).waitFor();
      const { decoded, code } = await qrAndCode(page);
      assert.equal(decoded, code, 'the QR on the page is the copy-and-paste code');
      assert.match(code, /^000201/);
      assert.equal(await page.locator('#pix-code').getAttribute('readonly'), '');
      assert.equal(await page.locator('#pix-amount').innerText(), `Valor: ${brl(4990)}`);
      assert.match(await page.locator('#pix-countdown').innerText(), /^Expira em (29|30):\d\d$/);
      // The status is said once on screen: the live line under the form only speaks to screen readers.
      assert.equal(await page.getByText('Aguardando pagamento…').count(), 1);
      assert.equal(await page.locator('#live-status').evaluate((node) => node.classList.contains('sr-only')), true);

      await page.getByRole('button', { name: 'Copiar código Pix' }).click();
      await page.locator('#pix-code-feedback', { hasText: 'Código Pix copiado' }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code);
      await screenshot(page, `${engine.name}-pix-copy-390`);

      await confirm(result.payments[0]);
      await page.getByRole('heading', { name: 'Pagamento confirmado' }).waitFor({ timeout: 15_000 });
      assert.equal(await page.locator('#pix-code').isHidden(), true);
      assert.equal(await page.locator('#receipt-amount').innerText(), brl(4990));
      assert.equal(await page.locator('#receipt-method').innerText(), 'Pix');
      assert.match(await page.locator('#receipt-order').innerText(), /^nº [0-9A-F]{8}$/);
      assert.equal(
        await page.locator('#receipt-email').innerText(),
        'O comprovante será enviado para pix-copia@example.com.',
      );
      assert.match(await page.locator('.receipt-summary').innerText(), /1 × E-book Finanças Pessoais: R\$\s49,90/);
      await screenshot(page, `${engine.name}-pix-receipt`);
      await page.close();
    });

    test('without the Clipboard API the code is still copied, by the selection, and the page says so', async () => {
      const { page } = await openTab(browser.context, server.origin);
      await page.addInitScript(() => Object.defineProperty(navigator, 'clipboard', { value: undefined }));
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('E-mail').fill('sem-clipboard@example.com');
      await page.getByLabel('Pix').check();
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.locator('#pix-code').waitFor();
      await page.getByRole('button', { name: 'Copiar código Pix' }).click();
      await page.locator('#pix-code-feedback', { hasText: 'Código Pix copiado' }).waitFor();
      assert.equal(
        await page.evaluate(() => {
          const field = document.getElementById('pix-code') as HTMLTextAreaElement;
          return field.value.slice(field.selectionStart, field.selectionEnd) === field.value;
        }),
        true,
      );
      await page.close();
    });

    test('the pix_qr_code_url page: QR equal to the code, copy button, countdown, live status, then the order summary', async () => {
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('E-mail').fill('pix-pagina@example.com');
      await page.getByLabel('Pix').check();
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/payments'));
      await page.getByRole('button', { name: 'Pagar' }).click();
      const result = await (await answer).json();
      await page.goto(result.pix_qr_code_url);
      const { decoded, code } = await qrAndCode(page);
      assert.equal(decoded, code);
      assert.equal(await page.locator('#pix-amount').innerText(), brl(4990));
      await page.getByRole('button', { name: 'Copiar código Pix' }).click();
      await page.locator('#pix-code-feedback', { hasText: 'Código Pix copiado' }).waitFor();
      assert.match(await page.locator('#pix-countdown').innerText(), /^Expira em (29|30):\d\d$/);
      assert.equal(await page.locator('#pix-status').innerText(), 'Aguardando pagamento');
      await screenshot(page, `${engine.name}-pix-page-waiting`);
      await confirm(result.payments[0]);
      await page.getByRole('heading', { name: 'Pagamento confirmado' }).waitFor({ timeout: 15_000 });
      assert.match(await page.locator('main').innerText(), /1 × E-book Finanças Pessoais: R\$\s49,90/);
      assert.equal(await page.locator('#pix-code').count(), 0);
      await screenshot(page, `${engine.name}-pix-page-paid`);
      await page.close();
    });

    test('a card in 3x: one success view with the amount, the installments, the payment code and the e-mail', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('E-mail').fill('recibo@example.com');
      await page.getByLabel('Cartão de crédito').check();
      await fillCard(page, TEST_CARDS.approved);
      const select = page.locator('#card0-installments');
      await select.selectOption({ index: 2 });
      const label = await select.locator('option:checked').innerText();
      const [, value, total] = /^3x de (R\$\s[\d,]+) com juros \(total (R\$\s[\d,]+)\)$/.exec(label)!;
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      assert.equal(await page.getByText('Pagamento aprovado').count(), 1, 'said once');
      assert.equal(await page.locator('#receipt-amount').innerText(), total);
      assert.equal(await page.locator('#receipt-method').innerText(), `Cartão de crédito, em 3x de ${value}`);
      assert.match(await page.locator('#receipt-code').innerText(), /^ch_/);
      assert.equal(
        await page.locator('#receipt-email').innerText(),
        'O comprovante será enviado para recibo@example.com.',
      );
      assertNoCardNumbers(requests);
      await screenshot(page, `${engine.name}-card-receipt`);
      await page.close();
    });

    test('a decline says what to do next', async () => {
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('E-mail').fill('recusa@example.com');
      await page.getByLabel('Cartão de crédito').check();
      await fillCard(page, TEST_CARDS.declined);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.locator('#card0-number-error').waitFor();
      assert.match(await page.locator('#card0-number-error').innerText(), /use outro cartão/);
      await page.close();
    });
  });
}
