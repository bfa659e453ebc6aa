import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import { launchChromium, useCheckoutServer, type CheckoutServer } from '../support/browser.ts';
import { engines } from '../support/engines.ts';
import { insertOrder } from '../support/records-fixtures.ts';
import {
  addDashboardUser,
  assertAccessible,
  checkPage,
  DASHBOARD_SCREENSHOTS,
  signInFirstTime,
} from './browser-support.ts';

const OWNER = { email: 'menu@loja.example', password: 'uma senha forte o bastante' };
const DELIVERIES = 23;

/**
 * The phone-width menu (a disclosure: button, Escape, focus back), the orders pager that follows has_more, and an
 * endpoint's deliveries paged by cursor, in Chromium with axe-core and screenshots.
 */
for (const engine of engines()) {
  describe(`the dashboard's menu and pagers in Chromium on ${engine.name}`, { timeout: 300_000 }, () => {
    let database: Database;
    let server: CheckoutServer;
    let browser: { context: BrowserContext; close(): Promise<void> };
    let page: Page;

    useCheckoutServer(engine, (setup) => ({ database, server } = setup));
    before(async () => {
      browser = await launchChromium();
      page = await browser.context.newPage();
      await page.setViewportSize({ width: 1280, height: 900 });
    });
    after(async () => browser?.close());

    const dashboard = (path = '') => `${server.origin}/dashboard${path}`;
    const tenant = () => ({
      accountId: server.merchant.account_id,
      companyId: Object.values(server.merchant.companies)[0]!,
      apiKey: '',
      slug: 'demo',
    });
    const menuButton = () => page.getByRole('button', { name: 'Menu' });
    const navigation = () => page.getByRole('navigation', { name: 'Navegação principal' });

    test('the owner signs in', async () => {
      const added = await addDashboardUser(database, server.origin, OWNER.email, 'owner');
      await signInFirstTime(page, added.sign_in_url, OWNER.password);
    });

    test('at 390 px the navigation folds behind a menu button that the keyboard opens and Escape closes', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      assert.equal(await navigation().isVisible(), false);
      assert.equal(await menuButton().getAttribute('aria-expanded'), 'false');
      const header = await page.locator('header.top').boundingBox();
      assert.ok(header!.height <= 80, `the folded header is ${header!.height} px tall`);
      await page.screenshot({ path: join(DASHBOARD_SCREENSHOTS, 'menu-closed-390.png') });

      await menuButton().focus();
      await page.keyboard.press('Enter');
      assert.equal(await menuButton().getAttribute('aria-expanded'), 'true');
      await navigation().getByRole('link', { name: 'Pedidos' }).waitFor();
      await assertAccessible(page, 'menu open');
      await page.screenshot({ path: join(DASHBOARD_SCREENSHOTS, 'menu-open-390.png') });

      await page.keyboard.press('Tab');
      await page.keyboard.press('Escape');
      assert.equal(await menuButton().getAttribute('aria-expanded'), 'false');
      assert.equal(await navigation().isVisible(), false);
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-controls')), 'main-menu');

      await page.keyboard.press('Space');
      await navigation().getByRole('link', { name: 'Pedidos' }).click();
      await page.getByRole('heading', { name: 'Pedidos' }).waitFor();
      assert.equal(await menuButton().getAttribute('aria-expanded'), 'false');
      assert.equal(await navigation().isVisible(), false);

      await page.setViewportSize({ width: 1280, height: 900 });
      assert.equal(await menuButton().isVisible(), false);
      assert.equal(await navigation().isVisible(), true);
    });

    test('the orders pager follows has_more: pages of one order, the count and page figures', async () => {
      const created = await database.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', tenant().accountId)
        .executeTakeFirstOrThrow();
      for (let n = Number(created.n); n < 3; n += 1) await insertOrder(database, tenant());
      const total = Math.max(3, Number(created.n));
      await page.goto(dashboard('/orders?limit=1'));
      await page
        .getByRole('status')
        .filter({ hasText: `Pedidos encontrados: ${total}` })
        .waitFor();
      const pager = page.getByRole('navigation', { name: 'Página' });
      await pager.getByText(`Página 1 de ${total}`).waitFor();
      assert.equal(await pager.getByRole('button', { name: 'Anterior' }).isDisabled(), true);
      await pager.getByRole('button', { name: 'Próxima' }).click();
      await pager.getByText(`Página 2 de ${total}`).waitFor();
      assert.match(page.url(), /page=2/);
      await checkPage(page, 'orders-pager');
    });

    test("an endpoint's deliveries page by cursor: newer and older", async () => {
      const endpointId = `ep_${'5a'.repeat(12)}`;
      await database.db
        .insertInto('notification_endpoints')
        .values({
          id: endpointId,
          account_id: tenant().accountId,
          url: 'https://erp.example.com/menu-hooks',
          secret_encrypted: 'v1.unused',
        })
        .execute();
      const base = Date.now() - 3_600_000;
      for (let n = 0; n < DELIVERIES; n += 1) {
        const eventId = `evt_menu_${String(n).padStart(2, '0')}`;
        const at = new Date(base + n * 1000);
        await database.db
          .insertInto('notification_events')
          .values({ id: eventId, account_id: tenant().accountId, type: 'order.paid', data: '{}', created_at: at })
          .execute();
        await database.db
          .insertInto('notification_deliveries')
          .values({
            id: `dlv_menu_${String(n).padStart(2, '0')}`,
            account_id: tenant().accountId,
            event_id: eventId,
            endpoint_id: endpointId,
            max_attempts: 15,
            created_at: at,
          })
          .execute();
      }
      await page.goto(dashboard('/developers'));
      const row = page.getByRole('listitem').filter({ hasText: 'https://erp.example.com/menu-hooks' });
      await row.getByRole('button', { name: 'Ver entregas' }).click();
      const deliveries = page.getByTestId('deliveries');
      const shown = deliveries.locator('li.delivery');
      await deliveries.getByRole('button', { name: /Reenviar order\.paid dlv_menu_22/ }).waitFor();
      assert.equal(await shown.count(), 20);
      const pages = deliveries.getByRole('navigation', { name: 'Páginas de entregas' });
      assert.equal(await pages.getByRole('button', { name: 'Mais recentes' }).isDisabled(), true);
      await pages.getByRole('button', { name: 'Mais antigas' }).click();
      await deliveries.getByRole('button', { name: /Reenviar order\.paid dlv_menu_00/ }).waitFor();
      assert.equal(await shown.count(), DELIVERIES - 20);
      assert.equal(await pages.getByRole('button', { name: 'Mais antigas' }).isDisabled(), true);
      await checkPage(page, 'deliveries-older');
      await pages.getByRole('button', { name: 'Mais recentes' }).click();
      await deliveries.getByRole('button', { name: /Reenviar order\.paid dlv_menu_22/ }).waitFor();
    });
  });
}
