import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import {
  fillPayer,
  launchChromium,
  openTab,
  screenshot,
  useCheckoutServer,
  type CheckoutServer,
} from '../support/browser.ts';
import { engines } from '../support/engines.ts';

const browser = await launchChromium();
const uidOf = (url: string) => url.split('/').pop();
after(() => browser.close());

/** The buyer pays on the upsell page with `method` (its radio's label); the API's answer. */
async function payOnUpsellPage(page: Page, server: CheckoutServer, email: string, method: string) {
  await page.goto(`${server.origin}/pay/${server.merchant.checkout_pages['course-upsell']}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel(method).check();
  if (method === 'Boleto bancário') await fillPayer(page);
  const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/payments'));
  await page.getByRole('button', { name: 'Pagar' }).click();
  return (await answer).json();
}

/** The buyer's bank pays: the sandbox delivers gateway_a's real webhook to POST /api/v1/webhooks. */
function confirmAtSandbox(server: CheckoutServer, gatewayId: string) {
  return fetch(`${server.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${gatewayId}/confirm`, { method: 'POST' });
}

/** One click on the offer; the upsell API's response. */
async function acceptOffer(page: Page) {
  const upsell = page.waitForResponse((response) => response.url().endsWith('/api/v1/upsell'));
  await page.getByRole('button', { name: 'Sim, quero Planilha Bônus' }).click();
  return upsell;
}

/** The upsell order of the original payment's order waits for its own payment by `method`, and the offer is spent. */
async function assertUpsellOrderSpent(
  database: Database,
  originalGatewayId: string,
  upsellGatewayId: string,
  method: string,
): Promise<void> {
  const original = await database.db
    .selectFrom('payments')
    .select('order_id')
    .where('gateway_id', '=', originalGatewayId)
    .executeTakeFirstOrThrow();
  const upsellOrders = await database.db
    .selectFrom('orders as o')
    .innerJoin('payments as p', 'p.order_id', 'o.id')
    .select(['o.status', 'p.method', 'p.status as payment_status', 'p.gateway_id'])
    .where('o.parent_order_id', '=', original.order_id)
    .where('o.source', '=', 'upsell')
    .execute();
  assert.deepEqual(upsellOrders, [
    { status: 'waiting_payment', method, payment_status: 'waiting_payment', gateway_id: upsellGatewayId },
  ]);
  const offer = await database.db
    .selectFrom('upsell_offers')
    .select(['consumed_at'])
    .where('order_id', '=', original.order_id)
    .executeTakeFirstOrThrow();
  assert.ok(offer.consumed_at, 'the offer is spent');
}

for (const engine of engines()) {
  describe(`hosted checkout page: the upsell offer of a pix or boleto paid later (${engine.name})`, () => {
    let database: Database;
    let server: CheckoutServer;
    // As in `checkout serve`: the worker applies acknowledged webhooks, woken by the receiver in this process.
    useCheckoutServer(engine, (setup) => ({ database, server } = setup), { worker: true });

    test("pix confirmed by the sandbox's real webhook: the page turns to paid, shows the offer, and one click creates the upsell order with its own pix", async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      const result = await payOnUpsellPage(page, server, 'pix-upsell@example.com', 'Pix');
      assert.equal(result.offer, undefined, 'a waiting pix has no offer yet');
      await page.getByRole('heading', { name: 'Pague com Pix' }).waitFor();

      assert.equal((await confirmAtSandbox(server, result.payments[0])).status, 200);
      await page.getByRole('heading', { name: 'Pagamento confirmado' }).waitFor({ timeout: 10_000 });
      await page.getByRole('heading', { name: 'Oferta especial para você' }).waitFor({ timeout: 20_000 });
      assert.match(await page.locator('#upsell').innerText(), /com um novo Pix/);
      assert.ok(
        requests.some((request) => request.url.endsWith(`/pay/status/${uidOf(result.pix_qr_code_url)}`)),
        'the offer came from the status poll',
      );
      await screenshot(page, `${engine.name}-pix-upsell-offer`);

      const upsellAnswer = await acceptOffer(page);
      assert.equal(upsellAnswer.status(), 200);
      const upsellBody = await upsellAnswer.json();
      assert.equal(upsellBody.order_status, 'waiting_payment');
      // The offer's own pix is shown in place, with its QR code.
      await page.locator('#pix-qr').waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Pague com Pix' }).count(), 1);
      assert.equal(
        await page.locator('#pix-qr').getAttribute('src'),
        `data:image/png;base64,${upsellBody.pix_qr_code}`,
      );

      await assertUpsellOrderSpent(database, result.payments[0], upsellBody.payments[0], 'pix');
      await screenshot(page, `${engine.name}-pix-upsell-accepted`);
      await page.close();
    });

    test("boleto confirmed by the sandbox's real webhook: the boleto view turns to paid, shows the offer, and one click creates the upsell order with its own boleto", async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      const result = await payOnUpsellPage(page, server, 'boleto-upsell@example.com', 'Boleto bancário');
      assert.equal(result.offer, undefined, 'a waiting boleto has no offer yet');
      await page.getByRole('heading', { name: 'Boleto gerado' }).waitFor();
      const statusUrl = `/pay/status/${uidOf(result.bank_slip_url)}`;
      await page.waitForRequest((request) => request.url().endsWith(statusUrl), { timeout: 15_000 });
      assert.equal(await page.locator('#boleto-status').innerText(), 'Aguardando pagamento…');
      await screenshot(page, `${engine.name}-boleto-upsell-waiting`);

      assert.equal((await confirmAtSandbox(server, result.payments[0])).status, 200);
      await page.getByRole('heading', { name: 'Pagamento confirmado' }).waitFor({ timeout: 30_000 });
      assert.equal(await page.locator('#boleto-status').innerText(), 'Pago! Recebemos o pagamento do seu boleto.');
      assert.equal(await page.locator('#boleto-link').isHidden(), true);
      await page.getByRole('heading', { name: 'Oferta especial para você' }).waitFor({ timeout: 30_000 });
      assert.match(await page.locator('#upsell').innerText(), /com um novo boleto/);
      const polls = requests.filter((request) => request.url.endsWith(statusUrl)).length;
      assert.ok(polls >= 2, 'the offer came from the status poll');
      await screenshot(page, `${engine.name}-boleto-upsell-offer`);

      const upsellAnswer = await acceptOffer(page);
      assert.equal(upsellAnswer.status(), 200);
      const upsellBody = await upsellAnswer.json();
      assert.equal(upsellBody.order_status, 'waiting_payment');
      assert.match(upsellBody.bank_slip_url, new RegExp(`^${server.origin}/pay/boleto/[0-9a-f-]{36}$`));
      // The offer's own boleto is shown in place, and its view polls that payment, with no further offer.
      await page.getByRole('heading', { name: 'Boleto gerado' }).waitFor();
      assert.equal(
        await page.getByRole('link', { name: 'Abrir o boleto para imprimir' }).getAttribute('href'),
        upsellBody.bank_slip_url,
      );
      await page.waitForRequest((request) => request.url().endsWith(`/pay/status/${uidOf(upsellBody.bank_slip_url)}`), {
        timeout: 15_000,
      });
      assert.equal(await page.getByRole('heading', { name: 'Oferta especial para você' }).count(), 0);
      assert.equal(
        requests.filter((request) => request.url.endsWith(statusUrl)).length,
        polls,
        'the original boleto is no longer polled',
      );

      await assertUpsellOrderSpent(database, result.payments[0], upsellBody.payments[0], 'bank_slip');
      await screenshot(page, `${engine.name}-boleto-upsell-accepted`);
      await page.close();
    });
  });
}
