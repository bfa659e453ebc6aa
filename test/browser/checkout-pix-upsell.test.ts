import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { launchChromium, openTab, screenshot, useCheckoutServer, type CheckoutServer } from '../support/browser.ts';
import { engines } from '../support/engines.ts';

const browser = await launchChromium();
const uidOf = (url: string) => url.split('/').pop();
after(() => browser.close());

for (const engine of engines()) {
  describe(`hosted checkout page: the upsell offer of a pix paid later (${engine.name})`, () => {
    let database: Database;
    let server: CheckoutServer;
    // As in `checkout serve`: the worker applies acknowledged webhooks, woken by the receiver in this process.
    useCheckoutServer(engine, (setup) => ({ database, server } = setup), { worker: true });

    test('pix confirmed by the sandbox\'s real webhook: the page turns to paid, shows the offer, and one click creates the upsell order with its own pix', async () => {
      const { page, requests } = await openTab(browser.context, server.origin);
      await page.goto(`${server.origin}/pay/${server.merchant.checkout_pages['course-upsell']}`);
      await page.getByLabel('E-mail').fill('pix-upsell@example.com');
      await page.getByLabel('Pix').check();
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/payments'));
      await page.getByRole('button', { name: 'Pagar' }).click();
      const result = await (await answer).json();
      assert.equal(result.offer, undefined, 'a waiting pix has no offer yet');
      await page.getByRole('heading', { name: 'Pague com Pix' }).waitFor();

      // The buyer's bank pays: the sandbox delivers gateway_a's real webhook to POST /api/v1/webhooks.
      const confirmed = await fetch(`${server.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${result.payments[0]}/confirm`, { method: 'POST' });
      assert.equal(confirmed.status, 200);
      await page.getByRole('heading', { name: 'Pagamento confirmado' }).waitFor({ timeout: 10_000 });
      await page.getByRole('heading', { name: 'Oferta especial para você' }).waitFor({ timeout: 20_000 });
      assert.match(await page.locator('#upsell').innerText(), /com um novo Pix/);
      assert.ok(requests.some((request) => request.url.endsWith(`/pay/status/${uidOf(result.pix_qr_code_url)}`)), 'the offer came from the status poll');
      await screenshot(page, `${engine.name}-pix-upsell-offer`);

      const upsell = page.waitForResponse((response) => response.url().endsWith('/api/v1/upsell'));
      await page.getByRole('button', { name: 'Sim, quero Planilha Bônus' }).click();
      const upsellAnswer = await upsell;
      assert.equal(upsellAnswer.status(), 200);
      const upsellBody = await upsellAnswer.json();
      assert.equal(upsellBody.order_status, 'waiting_payment');
      // The offer's own pix is shown in place, with its QR code.
      await page.locator('#pix-qr').waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Pague com Pix' }).count(), 1);
      assert.equal(await page.locator('#pix-qr').getAttribute('src'), `data:image/png;base64,${upsellBody.pix_qr_code}`);

      const original = await database.db.selectFrom('payments').select('order_id').where('gateway_id', '=', result.payments[0]).executeTakeFirstOrThrow();
      const upsellOrders = await database.db
        .selectFrom('orders as o')
        .innerJoin('payments as p', 'p.order_id', 'o.id')
        .select(['o.status', 'p.method', 'p.status as payment_status', 'p.gateway_id'])
        .where('o.parent_order_id', '=', original.order_id)
        .where('o.source', '=', 'upsell')
        .execute();
      assert.deepEqual(upsellOrders, [{ status: 'waiting_payment', method: 'pix', payment_status: 'waiting_payment', gateway_id: upsellBody.payments[0] }]);
      const offer = await database.db.selectFrom('upsell_offers').select(['consumed_at']).where('order_id', '=', original.order_id).executeTakeFirstOrThrow();
      assert.ok(offer.consumed_at, 'the offer is spent');
      await screenshot(page, `${engine.name}-pix-upsell-accepted`);
      await page.close();
    });
  });
}
