import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  assertNoCardNumbers,
  launchChromium,
  openTab,
  screenshot,
  useCheckoutServer,
  type CheckoutServer,
} from '../support/browser.ts';
import { engines } from '../support/engines.ts';

const browser = await launchChromium();
after(() => browser.close());

for (const engine of engines()) {
  describe(`the card form (${engine.name})`, () => {
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ server } = setup));

    test('the number is grouped as typed with its brand named; a past month is "Cartão vencido"; the CVV follows the brand', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(`${server.origin}/pay/${server.merchant.checkout_pages.ebook}`);
      await page.getByLabel('E-mail').fill('cartao@example.com');
      await page.getByLabel('Cartão de crédito').check();
      const card = page.locator('#card0');
      const number = card.getByLabel('Número do cartão');
      await number.pressSequentially('4111111111111111');
      assert.equal(await number.inputValue(), '4111 1111 1111 1111');
      assert.equal(await page.locator('#card0-brand').innerText(), 'Bandeira: Visa');
      assert.equal(await card.getByLabel('Código de segurança (CVV)').getAttribute('maxlength'), '3');
      await screenshot(page, `${engine.name}-card-form-visa`);

      await number.fill('');
      await number.pressSequentially('378282246310005');
      assert.equal(await number.inputValue(), '3782 822463 10005');
      assert.equal(await page.locator('#card0-brand').innerText(), 'Bandeira: American Express');
      assert.equal(await card.getByLabel('Código de segurança (CVV)').getAttribute('maxlength'), '4');

      const expiry = card.getByLabel('Validade (MM/AA)');
      const now = new Date();
      const past = new Date(now.getFullYear(), now.getMonth() - 1, 1);
      await expiry.pressSequentially(
        `${String(past.getMonth() + 1).padStart(2, '0')}${String(past.getFullYear()).slice(2)}`,
      );
      assert.match(await expiry.inputValue(), /^\d\d\/\d\d$/);
      await card.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
      await card.getByLabel('Código de segurança (CVV)').fill('123');
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.locator('#card0-expiry-error').waitFor();
      assert.equal(
        await page.locator('#card0-expiry-error').innerText(),
        'Cartão vencido: confira a validade ou use outro cartão.',
      );
      assert.equal(
        await page.locator('#card0-cvv-error').innerText(),
        'O código de segurança deste cartão (American Express) tem 4 dígitos.',
      );
      await screenshot(page, `${engine.name}-card-form-expired`);
      // Nothing was sent anywhere: the checks run in the browser.
      assert.equal(requests.filter((request) => request.url.endsWith('/api/v1/payments')).length, 0);
      assertNoCardNumbers(requests);
      await page.close();
    });
  });
}
