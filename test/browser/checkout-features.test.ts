import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import {
  assertNoCardNumbers,
  fillCard,
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

/** The next Monday to Friday at least two days ahead (the demo company opens on weekdays). */
function nextWeekday(): string {
  const day = new Date(Date.now() + 2 * 86_400_000);
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() + 1);
  return day.toISOString().slice(0, 10);
}

for (const engine of engines()) {
  describe(`hosted checkout features (${engine.name})`, () => {
    let database: Database;
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ database, server } = setup));
    const pageUrl = (slug: string) => `${server.origin}/pay/${server.merchant.checkout_pages[slug]}`;
    const paymentsOf = (pageSlug: string) =>
      database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['p.status', 'p.amount_cents', 'p.gateway', 'o.status as order_status', 'o.scheduled_at'])
        .where('o.checkout_page_id', '=', server.merchant.checkout_pages[pageSlug]!)
        .orderBy('p.id')
        .execute();

    test('two cards: the second card takes the amount typed, the first the rest', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('two-cards'));
      await page.getByLabel('E-mail').fill('dois@example.com');
      await page.getByLabel('Cartão de crédito').check();
      await page.getByLabel('Pagar com dois cartões').check();
      await fillCard(page, TEST_CARDS.approved, 0);
      await page.getByLabel('Valor neste cartão (R$)').fill('100,00');
      await fillCard(page, TEST_CARDS.approved, 1);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      const payments = await paymentsOf('two-cards');
      assert.deepEqual(
        payments.map((payment) => [payment.status, payment.amount_cents]),
        [
          ['paid', 19700],
          ['paid', 10000],
        ],
      );
      assertNoCardNumbers(requests);
      await screenshot(page, `${engine.name}-two-cards`);
      await page.close();
    });

    test('scheduling: a date and a free slot are chosen, customer data comes at the end, the slot is booked', async () => {
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('mentoring'));
      const order = await page.evaluate(() =>
        ['schedule', 'methods', 'customer'].map((id) =>
          [...document.querySelectorAll('fieldset')].findIndex((node) => node.id === id),
        ),
      );
      assert.ok(order[0]! < order[1]! && order[1]! < order[2]!, 'customer data is asked at the end');
      await page.getByLabel('Cartão de crédito').check();
      await page.getByRole('button', { name: 'Pagar' }).click();
      assert.equal(
        await page.evaluate(() => document.activeElement?.id),
        'schedule-date',
        'focus goes to the first error',
      );
      const date = nextWeekday();
      await page.getByLabel('Data').fill(date);
      await page.getByLabel('10:00').check();
      await page.getByLabel('E-mail').fill('agenda@example.com');
      await fillCard(page, TEST_CARDS.approved);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      const [payment] = await paymentsOf('mentoring');
      assert.equal(payment!.order_status, 'paid');
      assert.equal(new Date(payment!.scheduled_at!).toISOString(), new Date(`${date}T13:00:00Z`).toISOString());
      await screenshot(page, `${engine.name}-scheduled`);
      await page.close();
    });

    test('gateway_b page: the card becomes a confirmation token', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await payWithCard(page, pageUrl('gateway-b'), 'gb@example.com', TEST_CARDS.approved);
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      assert.match(
        requests.find((request) => request.url.endsWith('/api/v1/payments'))!.body,
        /"confirmation_token_id":"ctoken_/,
      );
      assert.deepEqual(
        (await paymentsOf('gateway-b')).map((payment) => [payment.gateway, payment.status]),
        [['gateway_b', 'paid']],
      );
      assertNoCardNumbers(requests);
      await screenshot(page, `${engine.name}-gateway-b`);
      await page.close();
    });

    test('gateway_c page selling a printed book: the delivery address is asked and stored, the card is encrypted in the browser into a card hash', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('ebook'));
      assert.equal(await page.locator('#address').count(), 0, 'a page of digital products asks no address');
      await page.goto(pageUrl('gateway-c'));
      await page.getByLabel('Quantidade').fill('2');
      await page.getByLabel('Quantidade').dispatchEvent('change');
      await page.getByLabel('E-mail').fill('gc@example.com');
      await page.getByLabel('Cartão de crédito').check();
      await page.locator('#total', { hasText: '159,80' }).waitFor();
      await fillCard(page, TEST_CARDS.approved);
      await page.getByLabel('CEP').fill('01310-10');
      await page.getByRole('button', { name: 'Pagar' }).click();
      assert.equal(
        await page.evaluate(() => document.activeElement?.id),
        'address-zipcode',
        'focus goes to the first error',
      );
      assert.match(await page.locator('#address-zipcode-error').innerText(), /8 dígitos/);
      assert.equal(await page.locator('#address-state-error').isVisible(), true);
      assert.ok(
        !requests.some((request) => request.url.endsWith('/api/v1/payments')),
        'nothing is sent while the address is incomplete',
      );
      await screenshot(page, `${engine.name}-address-errors`);
      await page.getByLabel('CEP').fill('01310-100');
      await page.getByLabel('Rua').fill('Avenida Paulista');
      await page.getByLabel('Número', { exact: true }).fill('1578');
      await page.getByLabel('Bairro').fill('Bela Vista');
      await page.getByLabel('Cidade').fill('São Paulo');
      await page.getByLabel('Estado').selectOption('SP');
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pagamento aprovado' }).waitFor();
      const sent = JSON.parse(requests.find((request) => request.url.endsWith('/api/v1/payments'))!.body) as {
        customer_address: unknown;
      };
      assert.deepEqual(sent.customer_address, {
        zipcode: '01310100',
        street: 'Avenida Paulista',
        number: '1578',
        neighborhood: 'Bela Vista',
        city: 'São Paulo',
        state: 'SP',
      });
      const customer = await database.db
        .selectFrom('customers')
        .select(['street', 'number', 'neighborhood', 'zipcode', 'city', 'state'])
        .where('email', '=', 'gc@example.com')
        .executeTakeFirstOrThrow();
      assert.deepEqual(customer, {
        street: 'Avenida Paulista',
        number: '1578',
        neighborhood: 'Bela Vista',
        zipcode: '01310100',
        city: 'São Paulo',
        state: 'SP',
      });
      assert.ok(requests.some((request) => request.url.endsWith('/card_hash_key')));
      assert.match(
        requests.find((request) => request.url.endsWith('/api/v1/payments'))!.body,
        /"credit_card_0_token":"\d+_[A-Za-z0-9+/=]{300,}"/,
      );
      assert.deepEqual(
        (await paymentsOf('gateway-c')).map((payment) => [payment.gateway, payment.status, payment.amount_cents]),
        [['gateway_c', 'paid', 15980]],
      );
      assertNoCardNumbers(requests);
      await screenshot(page, `${engine.name}-gateway-c`);
      await page.close();
    });

    test('upsell: after an approved card the one-click offer is shown, one click adds it, then redirect_url is followed', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await payWithCard(page, pageUrl('course-upsell'), 'upsell@example.com', TEST_CARDS.approved);
      await page.getByRole('heading', { name: 'Oferta especial para você' }).waitFor();
      const upsell = page.waitForRequest((request) => request.url().endsWith('/api/v1/upsell'));
      await page.getByRole('button', { name: 'Sim, quero Planilha Bônus' }).click();
      assert.match(String((await upsell).postData()), /^\{"offer":"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"\}$/);
      // The page's redirect_url is followed once the buyer has answered the offer.
      const redirected = page.waitForRequest(
        (request) => request.url().startsWith('https://loja.demo.localhost/obrigado'),
        { timeout: 15_000 },
      );
      await page.locator('#upsell-status', { hasText: 'Oferta adicionada ao seu pedido!' }).waitFor();
      await screenshot(page, `${engine.name}-upsell`);
      assert.equal((await redirected).isNavigationRequest(), true);
      assertNoCardNumbers(requests);
      await page.close();
    });

    test('the merchant code runs only in its sandboxed frame; an indexable page has no robots noindex', async () => {
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(pageUrl('custom-code'));
      const frame = page.locator('iframe.custom-code');
      assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
      await page.waitForFunction(() => document.querySelector('#method-pix') !== null);
      const child = page.frames().find((candidate) => candidate.url().endsWith('/custom_code'))!;
      await child.waitForFunction(() => document.title === 'merchant');
      assert.equal(await page.title(), 'Com código do vendedor', 'the merchant script did not touch the checkout page');
      assert.equal(await page.locator('meta[name=robots]').count(), 0);
      await page.close();
    });

    test("the client bundle is under 100 KB and the company host form serves only that company's pages", async () => {
      const bundle = await fetch(`${server.origin}/pay/assets/checkout.js`);
      const bytes = (await bundle.arrayBuffer()).byteLength;
      console.log(`# client bundle: ${bytes} bytes`);
      assert.ok(bytes > 1000 && bytes < 100 * 1024, `${bytes} bytes`);
      const id = server.merchant.checkout_pages.ebook;
      const own = await server.app.inject({ url: `/p/${id}`, headers: { host: 'loja-demo.127.0.0.1' } });
      assert.equal(own.statusCode, 200);
      assert.match(own.body, /E-book Finanças Pessoais/);
      const other = await server.app.inject({ url: `/p/${id}`, headers: { host: 'outra.127.0.0.1' } });
      assert.equal(other.statusCode, 404);
    });
  });
}
