import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import {
  fillCard,
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

const cents = (text: string) => Math.round(Number(text.replace(/[^\d,]/g, '').replace(',', '.')) * 100);

for (const engine of engines()) {
  describe(`hosted charge pages: notes, thank-you amounts, closed charges, expired pix (${engine.name})`, () => {
    let database: Database;
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ database, server } = setup), { worker: true });
    const chargeUrl = (uid: string) => `${server.origin}/pay/charges/${uid}`;
    const sandbox = () => server.sandboxes.baseUrlFor('gateway_a');

    /** A charge of the demo course made through POST /orders (an order with a due date), optionally partly paid elsewhere. */
    async function createCharge(extra: Record<string, unknown> = {}): Promise<string> {
      const created = await fetch(`${server.origin}/api/v1/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.merchant.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          customer: { email: 'cobranca@example.com', name: 'Bia' },
          items: [{ product_id: server.merchant.products.course, quantity: 1 }],
          ...extra,
        }),
      });
      assert.equal(created.status, 201);
      return ((await created.json()) as { uid: string }).uid;
    }

    const paymentsOf = (uid: string) =>
      database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select(['p.method', 'p.status', 'p.amount_cents', 'o.total_cents'])
        .where('o.uid', '=', uid)
        .orderBy('p.id')
        .execute();

    async function payPix(page: Page): Promise<string> {
      await page.getByLabel('Pix').check();
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.getByRole('heading', { name: 'Pague com Pix' }).waitFor();
      const charges = (await (await fetch(`${sandbox()}/sandbox/charges`)).json()) as {
        data: Array<{ id: string; method: string; state: string }>;
      };
      return charges.data.find((charge) => charge.method === 'pix' && charge.state === 'waiting_payment')!.id;
    }

    test('an overdue charge explains freight, fine and late interest; its thank-you page shows the Pix paid, not the order total; paid, it shows no form', async () => {
      const uid = server.charges.overdue;
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(chargeUrl(uid));
      const summary = await page.locator('section[aria-labelledby=products-heading]').innerText();
      assert.match(summary, /Frete: R\$\s15,00/);
      assert.match(summary, /Multa por atraso: R\$\s\d+,\d\d/);
      assert.match(summary, /Juros de mora \(\d+ dias de atraso\): R\$\s\d+,\d\d/);
      await page.locator('#method-pix').waitFor();
      await screenshot(page, `${engine.name}-charge-overdue-notes`);
      await page.getByLabel('Pix').check();
      const totalShown = cents(await page.locator('#total').innerText());
      const pix = await payPix(page);
      assert.equal((await fetch(`${sandbox()}/sandbox/charges/${pix}/confirm`, { method: 'POST' })).status, 200);
      await page.waitForURL(`${chargeUrl(uid)}/done`, { timeout: 20_000 });
      const [payment] = await paymentsOf(uid);
      assert.ok(payment!.amount_cents > payment!.total_cents, 'the Pix carried the fine and late interest');
      assert.equal(totalShown, payment!.amount_cents);
      const done = await page.locator('main').innerText();
      assert.match(
        done,
        new RegExp(
          `O pagamento de R\\$\\s${(payment!.amount_cents / 100).toFixed(2).replace('.', ',')} para Loja Demo LTDA foi confirmado`,
        ),
      );

      await page.goto(chargeUrl(uid));
      assert.equal(await page.getByRole('heading', { level: 2 }).innerText(), 'Esta cobrança já foi paga');
      assert.equal(await page.getByRole('button', { name: 'Pagar' }).count(), 0);
      assert.equal(await page.locator('form').count(), 0);
      await page.getByRole('link', { name: 'Ver o pagamento confirmado' }).click();
      await page.waitForURL(`${chargeUrl(uid)}/done`);
      await screenshot(page, `${engine.name}-charge-paid-closed`);
      await page.close();
    });

    test('a card in 3 installments: the thank-you page shows the amount charged with interest', async () => {
      const uid = server.charges.open;
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(chargeUrl(uid));
      await page.getByLabel('Cartão de crédito').check();
      const select = page.locator('#card0-installments');
      await select.selectOption((await select.locator('option', { hasText: /^3x/ }).getAttribute('value'))!);
      const totalShown = cents(await page.locator('#total').innerText());
      await fillCard(page, TEST_CARDS.approved);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.waitForURL(`${chargeUrl(uid)}/done`);
      const [payment] = await paymentsOf(uid);
      assert.deepEqual([payment!.status, payment!.amount_cents], ['paid', totalShown]);
      assert.ok(totalShown > 29_700);
      assert.match(
        await page.locator('main').innerText(),
        new RegExp(`O pagamento de R\\$\\s${(totalShown / 100).toFixed(2).replace('.', ',')} para`),
      );
      await page.close();
    });

    test('a partly paid charge says what was paid and what is left; its thank-you page shows this payment and the total paid', async () => {
      const uid = await createCharge({ payments: [{ gateway: 'external', type: 'pix', amount: 100 }] });
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(chargeUrl(uid));
      assert.match(await page.locator('main').innerText(), /Já pago: R\$\s100,00\. Falta pagar: R\$\s197,00/);
      await page.getByLabel('Cartão de crédito').check();
      await page.locator('#total', { hasText: '197,00' }).waitFor();
      await fillCard(page, TEST_CARDS.approved);
      await page.getByRole('button', { name: 'Pagar' }).click();
      await page.waitForURL(`${chargeUrl(uid)}/done`);
      const done = await page.locator('main').innerText();
      assert.match(done, /O pagamento de R\$\s197,00 para Loja Demo LTDA foi confirmado/);
      assert.match(done, /Total pago nesta cobrança: R\$\s297,00/);
      await screenshot(page, `${engine.name}-charge-partly-paid-done`);
      await page.close();
    });

    test('a charge with a coupon shows its discount; an expired Pix hides the QR, instruction, countdown and link and says so once', async () => {
      const uid = await createCharge({ coupon: 'DESCONTO20' });
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(chargeUrl(uid));
      assert.match(await page.locator('main').innerText(), /Desconto \(cupom DESCONTO20\): R\$\s20,00/);
      const pix = await payPix(page);
      assert.equal((await fetch(`${sandbox()}/sandbox/charges/${pix}/expire`, { method: 'POST' })).status, 200);
      await page.locator('#pix-status', { hasText: 'expirou' }).waitFor({ timeout: 15_000 });
      for (const hidden of ['#pix-qr', '#pix-countdown'])
        assert.equal(await page.locator(hidden).isHidden(), true, hidden);
      assert.equal(await page.getByRole('link', { name: 'Abrir o Pix copia e cola' }).isHidden(), true);
      assert.equal(await page.getByText('escaneie o QR Code').isHidden(), true);
      const text = await page.locator('main').innerText();
      assert.equal(text.split('Este Pix expirou').length - 1, 1, text);
      assert.equal(await page.locator('#pix-status').getAttribute('role'), 'alert');
      await screenshot(page, `${engine.name}-charge-pix-expired`);
      await page.close();
    });

    test('a cancelled charge shows a status page; one cancelled while open refuses the payment in Portuguese', async () => {
      const uid = await createCharge();
      const { page } = await openTab(browser.context, server.origin);
      await page.goto(chargeUrl(uid));
      await page.locator('#method-pix').waitFor();
      await database.db.updateTable('orders').set({ status: 'cancelled' }).where('uid', '=', uid).execute();
      await page.getByLabel('Pix').check();
      await page.getByRole('button', { name: 'Pagar' }).click();
      const summary = page.locator('#form-errors');
      await summary.waitFor();
      assert.match(await summary.innerText(), /Este pagamento não pode ser concluído agora\. Recarregue a página/);
      assert.doesNotMatch(await summary.innerText(), /cancelled|cannot|\(/);

      await page.reload();
      assert.equal(await page.getByRole('heading', { level: 2 }).innerText(), 'Esta cobrança foi cancelada');
      assert.equal(await page.getByRole('button', { name: 'Pagar' }).count(), 0);
      await screenshot(page, `${engine.name}-charge-cancelled`);
      await page.close();
    });
  });
}
