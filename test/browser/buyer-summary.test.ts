import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import { fillCard, launchChromium, TEST_CARDS, useCheckoutServer, type CheckoutServer } from '../support/browser.ts';
import { brl, cents, openForm, PAY_PATH, pay, seriousViolations, shoot } from '../support/buyer-pages.ts';
import { engines } from '../support/engines.ts';

const browser = await launchChromium();
after(() => browser.close());

/** The order summary's visible lines, signed cents by kind (`subtotal`, `discount`, `interest`…), and its total. */
async function summaryOf(page: Page): Promise<Record<string, number>> {
  const lines = await page.locator('#summary-lines .summary-line:not([hidden])').evaluateAll((nodes) =>
    nodes.map((node) => {
      const figure = node.querySelector('.figure')!;
      const { line, computed } = (node as HTMLElement).dataset;
      return [line ?? computed, figure.classList.contains('minus') ? -1 : 1, figure.textContent ?? ''] as const;
    }),
  );
  const shown = Object.fromEntries(lines.map(([kind, sign, text]) => [kind, sign * cents(text)]));
  return { ...shown, total: cents(await page.locator('#summary-total').innerText()) };
}

for (const engine of engines()) {
  describe(`the buyer's order summary and two cards (${engine.name})`, () => {
    let server: CheckoutServer;
    let database: Database;
    /** How far the app's clock runs ahead of the real one (a test moves it past the company's midnight). */
    let clockAhead = 0;
    useCheckoutServer(engine, (setup) => ({ server, database } = setup), {
      clock: () => new Date(Date.now() + clockAhead),
    });

    /** The order and payments a pay answer made, as stored, in card order. */
    async function stored(where: { gatewayIds: string[] } | { orderUid: string }) {
      const payments = await database.db
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .select([
          'o.uid',
          'o.subtotal_cents',
          'o.discount_cents',
          'o.freight_cents',
          'p.amount_cents',
          'p.interest_cents',
          'p.late_interest_cents',
          'p.installments',
          'p.card_index',
        ])
        .where((eb) =>
          'orderUid' in where ? eb('o.uid', '=', where.orderUid) : eb('p.gateway_id', 'in', where.gatewayIds),
        )
        .orderBy('p.id')
        .execute();
      assert.ok(payments.length > 0, 'the payment is stored');
      return payments;
    }

    test('a checkout page with a coupon, by card in 3x: subtotal, discount and installment interest are what is charged', async () => {
      const { page } = await openForm(
        browser.context,
        server.origin,
        `${server.origin}/pay/${server.merchant.checkout_pages.ebook}`,
        'Cartão de crédito',
      );
      await page.getByLabel('Código do cupom').fill('DEMO10');
      await page.getByRole('button', { name: 'Aplicar cupom' }).click();
      await page.locator('#summary-discount-line:not([hidden])').waitFor();
      const select = page.locator('#card0-installments');
      await select.selectOption((await select.locator('option', { hasText: /^3x/ }).getAttribute('value'))!);
      await page.locator('#summary-interest-line:not([hidden])').waitFor();
      const shown = await summaryOf(page);
      assert.equal(await page.locator('#summary-discount-label').innerText(), 'Desconto (cupom DEMO10):');
      assert.equal(shown.subtotal! + shown.discount! + shown.interest!, shown.total, 'the lines add up');
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-summary-coupon-3x-390`);
      await page.setViewportSize({ width: 1280, height: 900 });
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-summary-coupon-3x-1280`);
      await fillCard(page, TEST_CARDS.approved);
      const paid = await pay(page);
      const [card] = await stored({ gatewayIds: paid.payments as string[] });
      assert.deepEqual(
        [shown.subtotal, -shown.discount!, shown.interest, shown.total],
        [card!.subtotal_cents, card!.discount_cents, card!.interest_cents, card!.amount_cents],
      );
      await page.locator('#receipt').waitFor();
      assert.match(await page.locator('.receipt-summary').innerText(), /Desconto \(cupom DEMO10\): − R\$\s[\d,]+/);
      await shoot(page, `${engine.name}-summary-card-receipt-1280`);
      await page.close();
    });

    test('a cart with freight and a coupon, by Pix: subtotal, discount and freight are the order’s', async () => {
      const created = await fetch(`${server.origin}/api/v1/carts/${server.merchant.cart_pages.carrinho}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.merchant.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          payment_method: 'pix',
          customer: { email: 'carrinho-resumo@example.com' },
          freight: 12.5,
          items: [{ name: 'Consultoria', value: 150, quantity: 2 }],
        }),
      });
      assert.equal(created.status, 201);
      const link = ((await created.json()) as { link: string }).link;
      const { page } = await openForm(browser.context, server.origin, link, 'Pix');
      await page.getByLabel('Código do cupom').fill('DEMO10');
      await page.getByRole('button', { name: 'Aplicar cupom' }).click();
      await page.locator('#summary-discount-line:not([hidden])').waitFor();
      const shown = await summaryOf(page);
      assert.equal(await page.locator('#summary-interest-line').isHidden(), true, 'a Pix has no interest');
      assert.equal(shown.freight, 1250);
      assert.equal(shown.subtotal! + shown.discount! + shown.freight!, shown.total, 'the lines add up');
      await shoot(page, `${engine.name}-summary-cart-390`);
      const paid = (await pay(page)) as { payments: Array<{ gateway_id: string }> };
      const [pix] = await stored({ gatewayIds: [paid.payments[0]!.gateway_id] });
      assert.deepEqual(
        [shown.subtotal, -shown.discount!, shown.freight, shown.total],
        [pix!.subtotal_cents, pix!.discount_cents, pix!.freight_cents, pix!.amount_cents],
      );
      await page.close();
    });

    test('an overdue charge by Pix: the fine and the late interest are what the payment carries beyond the charge', async () => {
      const { page } = await openForm(
        browser.context,
        server.origin,
        `${server.origin}/pay/charges/${server.charges.overdue}`,
        'Pix',
      );
      const shown = await summaryOf(page);
      assert.ok(shown.fine! > 0 && shown['late-interest']! > 0, 'an overdue charge adds both');
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-summary-overdue-390`);
      await pay(page);
      const payment = (await stored({ orderUid: server.charges.overdue })).at(-1)!;
      assert.deepEqual(
        [shown.subtotal, shown.freight, shown.fine, shown['late-interest'], shown.total],
        [
          payment.subtotal_cents,
          payment.freight_cents,
          payment.interest_cents - payment.late_interest_cents,
          payment.late_interest_cents,
          payment.amount_cents,
        ],
      );
      await page.close();
    });

    test('a price that moved after the page quoted it is not charged: the page shows the new total to confirm', async () => {
      const uid = server.charges.overdue;
      const { page, requests } = await openForm(
        browser.context,
        server.origin,
        `${server.origin}/pay/charges/${uid}`,
        'Pix',
      );
      const quotedBefore = await summaryOf(page);
      const paymentsBefore = (await stored({ orderUid: uid }).catch(() => [])).length;
      // The company's midnight passes while the page is open: a day more of late interest is due.
      clockAhead = 86_400_000;
      try {
        const refused = page.waitForResponse((response) => PAY_PATH.test(new URL(response.url()).pathname));
        await page.getByRole('button', { name: 'Pagar' }).click();
        assert.equal((await refused).status(), 409);
        await page.getByText('O valor a pagar mudou desde que esta página foi aberta').first().waitFor();
        await page.waitForFunction(
          (before) => document.querySelector('#summary-total')?.textContent?.trim() !== before,
          brl(quotedBefore.total!),
        );
        const quotedAfter = await summaryOf(page);
        assert.ok(quotedAfter.total! > quotedBefore.total!, `${quotedAfter.total} after ${quotedBefore.total}`);
        // The lines were rendered again: a day more of late interest, and they add up to the new total.
        assert.ok(quotedAfter['late-interest']! > quotedBefore['late-interest']!, JSON.stringify(quotedAfter));
        const { total, ...lines } = quotedAfter;
        assert.equal(
          Object.values(lines).reduce((sum, each) => sum + each, 0),
          total,
          JSON.stringify(quotedAfter),
        );
        await page.getByText(/Juros de mora \(11 dias de atraso\)/).waitFor();
        assert.equal(await page.locator('#total').innerText(), brl(quotedAfter.total!), 'beside the pay button too');
        assert.equal((await stored({ orderUid: uid }).catch(() => [])).length, paymentsBefore, 'nothing charged');
        assert.deepEqual(await seriousViolations(page), []);
        await shoot(page, `${engine.name}-charge-total-moved-390`);

        await pay(page);
        await page.locator('#pix-code').waitFor();
        assert.equal((await stored({ orderUid: uid })).at(-1)!.amount_cents, quotedAfter.total);
        const sent = requests.filter(
          (request) => request.method === 'POST' && PAY_PATH.test(new URL(request.url).pathname),
        );
        assert.deepEqual(
          sent.map((request) => JSON.parse(request.body).expected_total),
          [quotedBefore.total! / 100, quotedAfter.total! / 100],
          'each pay names the total on screen',
        );
      } finally {
        clockAhead = 0;
      }
    });

    test('cards and Pix on the cart and the charges: the summary’s total and interest are each payment’s', async () => {
      /** Pays the open form by card in `count` installments and returns what the summary showed. */
      async function payByCard(page: Page, count: number): Promise<Record<string, number>> {
        const select = page.locator('#card0-installments');
        const option = select.locator('option', { hasText: count === 1 ? /^À vista/ : new RegExp(`^${count}x`) });
        await option.waitFor({ state: 'attached' });
        await select.selectOption((await option.getAttribute('value'))!);
        if (count > 1) await page.locator('#summary-interest-line:not([hidden])').waitFor();
        const shown = await summaryOf(page);
        await fillCard(page, TEST_CARDS.approved);
        await page.getByRole('button', { name: 'Pagar' }).click();
        await page.locator('#receipt, h2:has-text("Pagamento confirmado")').first().waitFor();
        return shown;
      }

      const created = await fetch(`${server.origin}/api/v1/carts/${server.merchant.cart_pages.carrinho}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.merchant.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          payment_method: 'credit_card',
          customer: { email: 'carrinho-cartao@example.com' },
          freight: 20,
          items: [{ name: 'Consultoria', value: 90, quantity: 1 }],
        }),
      });
      const cartUid = ((await created.json()) as { link: string }).link.split('/').at(-1)!;
      const cart = await openForm(
        browser.context,
        server.origin,
        `${server.origin}/pay/carts/${cartUid}`,
        'Cartão de crédito',
      );
      const cartShown = await payByCard(cart.page, 2);
      const cartOrder = await database.db
        .selectFrom('orders')
        .select('uid')
        .where('cart_id', '=', cartUid)
        .executeTakeFirstOrThrow();
      const [cartCard] = await stored({ orderUid: cartOrder.uid });
      assert.deepEqual(
        [cartShown.subtotal, cartShown.freight, cartShown.interest, cartShown.total],
        [cartCard!.subtotal_cents, cartCard!.freight_cents, cartCard!.interest_cents, cartCard!.amount_cents],
      );
      await shoot(cart.page, `${engine.name}-cart-card-receipt-390`);
      await cart.page.close();

      const open = `${server.origin}/pay/charges/${server.charges.open}`;
      const pix = await openForm(browser.context, server.origin, open, 'Pix');
      const pixShown = await summaryOf(pix.page);
      await pay(pix.page);
      await pix.page.locator('#pix-code').waitFor();
      assert.equal((await stored({ orderUid: server.charges.open })).at(-1)!.amount_cents, pixShown.total);
      await pix.page.close();

      for (const [name, uid] of [
        ['charge', server.charges.open],
        ['overdue', server.charges.overdue],
      ] as const) {
        const { page } = await openForm(
          browser.context,
          server.origin,
          `${server.origin}/pay/charges/${uid}`,
          'Cartão de crédito',
        );
        const shown = await payByCard(page, 3);
        const card = (await stored({ orderUid: uid })).at(-1)!;
        // A card carries the overdue fine and late interest in its interest with the installments' own.
        const overdue = (shown.fine ?? 0) + (shown['late-interest'] ?? 0);
        assert.deepEqual(
          [shown.subtotal, shown.interest! + overdue, shown['late-interest'] ?? 0, shown.total, card.installments],
          [card.subtotal_cents, card.interest_cents, card.late_interest_cents, card.amount_cents, 3],
        );
        assert.equal(overdue > 0, name === 'overdue');
        await shoot(page, `${engine.name}-${name}-card-done-390`);
        await page.close();
      }
    });

    test('two cards on the hosted page: each card’s amount and installments shown, charged and confirmed', async () => {
      const { page } = await openForm(
        browser.context,
        server.origin,
        `${server.origin}/pay/${server.merchant.checkout_pages['two-cards']}`,
        'Cartão de crédito',
      );
      await page.getByLabel('Pagar com dois cartões').check();
      await page.locator('#card1-amount').fill('100,00');
      const second = page.locator('#card1-installments');
      const twice = second.locator('option', { hasText: /^2x/ });
      await twice.waitFor({ state: 'attached' });
      await second.selectOption((await twice.getAttribute('value'))!);
      await page.locator('#summary-interest-line:not([hidden])').waitFor();
      const labels = [
        await page.locator('#card0-installments option:checked').innerText(),
        await second.locator('option:checked').innerText(),
      ];
      const shown = await summaryOf(page);
      assert.equal(cents(await page.locator('#total').innerText()), shown.total);
      const perCard = await page.locator('#summary-cards li').allInnerTexts();
      await fillCard(page, TEST_CARDS.approved, 0);
      await fillCard(page, TEST_CARDS.approved, 1);
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-two-cards-form-390`);
      const paid = await pay(page);
      const cards = await stored({ gatewayIds: paid.payments as string[] });
      assert.deepEqual(
        cards.map((card) => [card.card_index, card.installments]),
        [
          [0, 1],
          [1, 2],
        ],
      );
      assert.equal(cards[0]!.amount_cents, cents(labels[0]!), 'the first card’s lump sum, as its option said');
      assert.equal(cards[1]!.amount_cents, cents(labels[1]!.match(/total (R\$\s[\d.,]+)/)![1]!), 'the 2x total');
      assert.equal(shown.total, cards[0]!.amount_cents + cards[1]!.amount_cents);
      assert.deepEqual(perCard, [
        `Cartão 1: ${brl(cards[0]!.amount_cents)} à vista`,
        `Cartão 2: ${brl(cards[1]!.amount_cents)} em 2x de ${brl(cards[1]!.amount_cents / 2)}`,
      ]);
      assert.equal(shown.interest, cards[0]!.interest_cents + cards[1]!.interest_cents);
      await page.locator('#receipt').waitFor();
      assert.equal(cents(await page.locator('#receipt-amount').innerText()), shown.total);
      assert.equal(
        await page.locator('#receipt-method').innerText(),
        `Dois cartões: ${brl(cards[0]!.amount_cents)} à vista e ${brl(cards[1]!.amount_cents)} em 2x de ${brl(cards[1]!.amount_cents / 2)}`,
      );
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-two-cards-receipt-390`);
      await page.setViewportSize({ width: 1280, height: 900 });
      assert.deepEqual(await seriousViolations(page), []);
      await shoot(page, `${engine.name}-two-cards-receipt-1280`);
      await page.close();
    });
  });
}
