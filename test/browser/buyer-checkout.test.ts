import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { digitableLineToBarcode } from '../../src/brazil/boleto.ts';
import { readBoletoBarcode, readQrCode } from '../support/barcode-reader.ts';
import { fillPayer, launchChromium, useCheckoutServer, type CheckoutServer } from '../support/browser.ts';
import {
  brl,
  cents,
  openForm as openFormAt,
  PAY_PATH,
  pay,
  seriousViolations,
  shoot,
  SHOTS,
  shotOf,
} from '../support/buyer-pages.ts';
import { engines } from '../support/engines.ts';
import { pdfText, renderPdfPage } from '../support/pdf-render.ts';

const browser = await launchChromium();
after(() => browser.close());

for (const engine of engines()) {
  describe(`the buyer's checkout: identity, boleto híbrido, Pix (${engine.name})`, () => {
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ server } = setup));

    const checkoutUrl = () => `${server.origin}/pay/${server.merchant.checkout_pages.ebook}`;
    async function cartUrl(customer: Record<string, string>): Promise<string> {
      const created = await fetch(`${server.origin}/api/v1/carts/${server.merchant.cart_pages.carrinho}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.merchant.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          payment_method: 'bank_slip',
          customer,
          items: [{ name: 'Consultoria', value: 150, quantity: 1 }],
        }),
      });
      assert.equal(created.status, 201);
      return ((await created.json()) as { link: string }).link;
    }

    const openForm = (url: string, method: 'Pix' | 'Boleto bancário') =>
      openFormAt(browser.context, server.origin, url, method);

    /** The boleto page at 390 px, 1x: its barcode and its Pix QR read from screenshots, its slip fields. */
    async function readBoletoPage(page: Page, url: string, name: string) {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(url);
      const line = (await page.locator('#boleto-line').inputValue()).replace(/\D/g, '');
      const barcode = readBoletoBarcode(await shotOf(page, page.locator('#boleto-barcode')));
      assert.equal(barcode, digitableLineToBarcode(line), 'the barcode on the screen is the digitable line');
      // The PDF drawn by another renderer (poppler) at 150 dpi, its barcode read by ZXing: the digitable line's too.
      const pdf = await fetch(`${url}.pdf`);
      assert.equal(pdf.status, 200);
      const pdfBytes = Buffer.from(await pdf.arrayBuffer());
      const scan = renderPdfPage(pdfBytes);
      mkdirSync(SHOTS, { recursive: true });
      writeFileSync(join(SHOTS, `${engine.name}-${name}-boleto-pdf-150dpi.png`), scan);
      assert.equal(readBoletoBarcode(scan), digitableLineToBarcode(line), 'the printed barcode is the digitable line');
      const pixCode = await page.locator('#boleto-pix').inputValue();
      assert.equal(readQrCode(await shotOf(page, page.locator('#boleto-pix-qr'))), pixCode, 'boleto híbrido QR');
      const slip = Object.fromEntries(
        await page
          .locator('dl.slip dt')
          .evaluateAll((terms) => terms.map((term) => [term.textContent, term.nextElementSibling?.textContent])),
      ) as Record<string, string>;
      // The agency and account of the gateway's bank, on the page and in the PDF (twice: recibo and ficha).
      const agency = slip['Agência/Código do beneficiário']!;
      assert.match(agency, /^\d{4}-[\dX] \/ \d{8}-[\dX]$/);
      assert.equal(pdfText(pdfBytes).split(agency).length - 1, 2, 'the PDF prints the agency and account');
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-${name}-boleto-page-390`);
      await page.setViewportSize({ width: 1280, height: 900 });
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-${name}-boleto-page-1280`);
      return { line, barcode, slip };
    }

    test('checkout page, boleto: the payer is asked, a bad CPF is refused on the page with no request, the boleto names the payer', async () => {
      const { page, requests } = await openForm(checkoutUrl(), 'Boleto bancário');
      const identity = page.locator('#identity');
      await identity.waitFor();
      await page.getByLabel('Nome completo').fill('Maria da Silva');
      await page.getByLabel('CPF ou CNPJ').fill('52998224724');
      assert.equal(await page.getByLabel('CPF ou CNPJ').inputValue(), '529.982.247-24', 'the CPF mask');
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.locator('#customer-document-error').waitFor();
      assert.match(await page.locator('#customer-document-error').innerText(), /CPF ou CNPJ inválido/);
      assert.equal(requests.filter((request) => PAY_PATH.test(new URL(request.url).pathname)).length, 0);
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-checkout-boleto-bad-cpf-390`);
      await page.getByLabel('CPF ou CNPJ').fill('52998224725');
      const result = await pay(page);
      const sent = requests.find((request) => PAY_PATH.test(new URL(request.url).pathname))!;
      assert.deepEqual(
        { name: JSON.parse(sent.body).customer_name, document: JSON.parse(sent.body).customer_identification },
        { name: 'Maria da Silva', document: '52998224725' },
      );
      await page.getByRole('heading', { name: 'Boleto gerado' }).waitFor();
      await shoot(page, `${engine.name}-checkout-boleto-result-390`);
      const { slip } = await readBoletoPage(page, result.bank_slip_url!, 'checkout');
      assert.equal(slip['Pagador'], 'Maria da Silva — 529.982.247-25');
      assert.match(slip['Nosso número']!, /^\d{17}$/);
      assert.equal(slip['(=) Valor cobrado'], slip['(=) Valor do documento']);
      await page.close();
    });

    test('checkout page, Pix: no payer asked; the QR read from a 1x screenshot is the copy-and-paste code', async () => {
      const { page } = await openForm(checkoutUrl(), 'Pix');
      assert.equal(await page.locator('#identity').isHidden(), true);
      // The order summary: above the form at 390 px, beside it at 1280 px; its total is the one charged.
      const summary = page.locator('#order-summary');
      const methods = page.locator('#methods');
      await page.locator('#total', { hasText: '49,90' }).waitFor();
      assert.equal(await page.locator('#summary-total').innerText(), await page.locator('#total').innerText());
      assert.ok((await summary.boundingBox())!.y < (await methods.boundingBox())!.y, 'above at 390 px');
      await page.setViewportSize({ width: 1280, height: 900 });
      const [wide, form] = [(await summary.boundingBox())!, (await methods.boundingBox())!];
      assert.ok(wide.x >= form.x + form.width, 'beside the form at 1280 px');
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-checkout-summary-1280`);
      await page.setViewportSize({ width: 390, height: 844 });
      const shownTotal = await page.locator('#summary-total').innerText();
      await pay(page);
      await page.locator('#pix-amount', { hasText: shownTotal }).waitFor();
      await page.locator('#pix-code').waitFor();
      const code = await page.locator('#pix-code').inputValue();
      assert.equal(readQrCode(await shotOf(page, page.locator('#pix-qr'))), code);
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-checkout-pix-390`);
      await page.close();
    });

    test('a page that asks the payer for every method (customer data at the end): Pix needs name and CPF too', async () => {
      const { page, requests } = await openForm(
        `${server.origin}/pay/${server.merchant.checkout_pages['asks-payer']}`,
        'Pix',
      );
      const identity = page.locator('#identity');
      assert.equal(await identity.isVisible(), true, 'asked whatever the method');
      assert.equal(await page.locator('#customer + #identity').count(), 1, 'right after the buyer’s data');
      const [card, payer] = [
        await page.locator('#card-section').evaluate((node) => node.getBoundingClientRect().y),
        await identity.evaluate((node) => node.getBoundingClientRect().y),
      ];
      assert.ok(payer > card, 'at the end, where customer_data_at puts the buyer’s data');
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.locator('#customer-name-error').waitFor();
      assert.equal(requests.filter((request) => PAY_PATH.test(new URL(request.url).pathname)).length, 0);
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-asks-payer-pix-missing-390`);
      await fillPayer(page);
      await pay(page);
      const sent = JSON.parse(requests.find((request) => PAY_PATH.test(new URL(request.url).pathname))!.body);
      assert.deepEqual([sent.customer_name, sent.customer_identification], ['Maria da Silva', '52998224725']);
      await page.locator('#pix-code').waitFor();
      await shoot(page, `${engine.name}-asks-payer-pix-390`);
      await page.close();
    });

    test('cart: only the missing CPF/CNPJ is asked (an alphanumeric CNPJ is taken); its Pix QR reads from the screen', async () => {
      const url = await cartUrl({ email: 'carrinho-boleto@example.com', name: 'Empresa Alfa' });
      const { page } = await openForm(url, 'Boleto bancário');
      await page.locator('#identity').waitFor();
      assert.equal(await page.getByLabel('Nome completo').count(), 0, 'the cart already names the payer');
      await page.getByLabel('CPF ou CNPJ').fill('12abc34501de35');
      assert.equal(await page.getByLabel('CPF ou CNPJ').inputValue(), '12.ABC.345/01DE-35');
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-cart-boleto-form-390`);
      const result = await pay(page);
      const { slip } = await readBoletoPage(page, result.bank_slip_url!, 'cart');
      assert.equal(slip['Pagador'], 'Empresa Alfa — 12.ABC.345/01DE-35');
      await page.close();

      const pix = await openForm(await cartUrl({ email: 'carrinho-pix@example.com' }), 'Pix');
      await pay(pix.page);
      await pix.page.locator('#pix-code').waitFor();
      const code = await pix.page.locator('#pix-code').inputValue();
      assert.equal(readQrCode(await shotOf(pix.page, pix.page.locator('#pix-qr'))), code);
      await shoot(pix.page, `${engine.name}-cart-pix-390`);
      await pix.page.close();
    });

    test('charge and overdue charge: the customer’s identity is not asked again; overdue, fine and interest apart', async () => {
      const values: Record<string, Record<string, string>> = {};
      for (const [name, uid] of [
        ['charge', server.charges.open],
        ['overdue', server.charges.overdue],
      ] as const) {
        const { page } = await openForm(`${server.origin}/pay/charges/${uid}`, 'Boleto bancário');
        assert.equal(await page.locator('#identity').count(), 0, 'the charge’s customer has a name and a CPF');
        await shoot(page, `${engine.name}-${name}-boleto-form-390`);
        const result = await pay(page);
        const read = await readBoletoPage(page, result.bank_slip_url!, name);
        values[name] = read.slip;
        // The barcode carries what the buyer pays: the "(=) Valor cobrado".
        const barcodeCents = Number(read.barcode.slice(9, 19));
        assert.equal(read.slip['(=) Valor cobrado'], brl(barcodeCents));
        await page.close();
      }
      assert.equal('(+) Juros/Multa' in values.charge!, false);
      const surcharge = cents(values.overdue!['(+) Juros/Multa']!);
      assert.ok(surcharge > 0, 'an overdue charge adds its fine and interest');
      assert.equal(
        cents(values.overdue!['(=) Valor do documento']!) + surcharge,
        cents(values.overdue!['(=) Valor cobrado']!),
      );
    });
  });
}
