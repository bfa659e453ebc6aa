import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  fillCard,
  launchChromium,
  openTab,
  screenshot,
  useCheckoutServer,
  type CheckoutServer,
} from '../support/browser.ts';
import { engines } from '../support/engines.ts';

const browser = await launchChromium();
after(() => browser.close());

/** Sandbox cards (docs/gateways.md): approved only after the gateway call timed out, and a gateway failure. */
const LATE_APPROVAL = '4000000000000267';
const GATEWAY_ERROR = '4000000000000119';

for (const engine of engines()) {
  describe(`hosted checkout page: quantity bounds and gateway failures (${engine.name})`, () => {
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ server } = setup));
    const pageUrl = (slug: string) => `${server.origin}/pay/${server.merchant.checkout_pages[slug]}`;

    test('a quantity above the product maximum is reported at its field before asking the service; a valid one clears it', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('gateway-c'));
      await page.locator('#method-pix').waitFor();
      const quantity = page.getByLabel('Quantidade');
      await quantity.fill('6');
      await quantity.dispatchEvent('change');
      await page.locator('#quantity-0-error').waitFor();
      assert.equal(await page.locator('#quantity-0-error').innerText(), 'Escolha uma quantidade de 1 a 5.');
      assert.equal(await quantity.getAttribute('aria-invalid'), 'true');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'quantity-0');
      assert.equal(await page.locator('#methods-error').isHidden(), true);
      // Read the query itself: the page's id (a UUID) may well contain "=6" once encoded in the URL.
      const askedQuantities = requests.flatMap((request) =>
        [...new URL(request.url).searchParams].filter(([key]) => key.startsWith('products[')).map(([, value]) => value),
      );
      assert.ok(!askedQuantities.includes('6'), `no plans asked for 6 (asked: ${askedQuantities.join(', ')})`);
      await screenshot(page, `${engine.name}-quantity-over-max`);

      await quantity.fill('3');
      await quantity.dispatchEvent('change');
      await page.locator('#total', { hasText: '239,70' }).waitFor();
      assert.equal(await page.locator('#form-errors').isHidden(), true);
      assert.equal(await page.locator('#quantity-0-error').isHidden(), true);
      assert.equal(await quantity.getAttribute('aria-invalid'), null);
      await page.close();
    });

    test('a gateway timeout (504) says the payment is being confirmed and takes the form away, so it is not paid twice', async () => {
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('E-mail').fill('demorado@example.com');
      await page.getByLabel('Cartão de crédito').check();
      await fillCard(page, LATE_APPROVAL);
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/payments'), {
        timeout: 30_000,
      });
      await page.getByRole('button', { name: 'Pagar' }).click();
      assert.equal((await answer).status(), 504);
      await page.getByRole('heading', { name: 'Confirmando o pagamento' }).waitFor();
      const text = await page.locator('#result').innerText();
      assert.match(text, /Não pague de novo/);
      assert.doesNotMatch(text, /Nada foi cobrado/);
      assert.equal(await page.getByRole('button', { name: 'Pagar' }).isHidden(), true);
      assert.equal(await page.locator('#checkout-form').isHidden(), true);
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'result');
      await screenshot(page, `${engine.name}-gateway-timeout`);
      await page.close();
    });

    test('a gateway failure (502) says nothing was charged and lets the buyer try again', async () => {
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('E-mail').fill('falha@example.com');
      await page.getByLabel('Cartão de crédito').check();
      await fillCard(page, GATEWAY_ERROR);
      await page.getByRole('button', { name: 'Pagar' }).click();
      const summary = page.locator('#form-errors');
      await summary.waitFor();
      assert.match(await summary.innerText(), /Nada foi cobrado; tente de novo em instantes\./);
      assert.equal(await page.getByRole('button', { name: 'Pagar' }).isEnabled(), true);
      await page.close();
    });
  });
}
