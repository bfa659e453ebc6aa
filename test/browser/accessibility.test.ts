import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
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
after(() => browser.close());

// axe-core's own bundle, injected into each page as a script (the pages' CSP does not apply to injected code).
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WIDTHS = [390, 1280];

type Violation = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] };

/** The serious and critical axe violations of the page as it stands. */
async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations;
  })) as Violation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

for (const engine of engines()) {
  describe(`axe-core on every hosted page at 390 and 1280 px (${engine.name})`, () => {
    let server: CheckoutServer;
    useCheckoutServer(engine, (setup) => ({ server } = setup));

    async function check(name: string, open: (page: Page) => Promise<void>): Promise<void> {
      for (const width of WIDTHS) {
        const { page } = await openTab(browser.context, server.origin);
        await page.setViewportSize({ width, height: 900 });
        await open(page);
        const found = await seriousViolations(page);
        await screenshot(page, `${engine.name}-a11y-${name}-${width}`);
        assert.deepEqual(
          found.map(
            (violation) =>
              `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
          ),
          [],
          `${name} at ${width} px`,
        );
        await page.close();
      }
    }

    const pageUrl = (slug: string) => `${server.origin}/pay/${server.merchant.checkout_pages[slug]}`;
    const pay = async (page: Page, method: 'Pix' | 'Boleto bancário') => {
      await page.goto(pageUrl('ebook'));
      await page.getByLabel('E-mail').fill('a11y@example.com');
      await page.getByLabel(method).check();
      if (method === 'Boleto bancário') await fillPayer(page);
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/payments'));
      await page.getByRole('button', { name: 'Pagar' }).click();
      return (await answer).json();
    };

    test('checkout, charge and overdue charge forms', async () => {
      await check('checkout', async (page) => {
        await page.goto(pageUrl('ebook'));
        await page.locator('#method-options input').first().waitFor();
      });
      await check('charge', async (page) => {
        await page.goto(`${server.origin}/pay/charges/${server.charges.open}`);
        await page.locator('#method-options input').first().waitFor();
      });
      await check('charge-overdue', async (page) => {
        await page.goto(`${server.origin}/pay/charges/${server.charges.overdue}`);
        await page.locator('#method-options input').first().waitFor();
      });
    });

    test('the Pix result, the Pix page, the boleto result and the boleto page', async () => {
      await check('pix-result', async (page) => {
        await pay(page, 'Pix');
        await page.locator('#pix-code').waitFor();
      });
      await check('pix-page', async (page) => {
        const result = await pay(page, 'Pix');
        await page.goto(result.pix_qr_code_url);
      });
      await check('boleto-result', async (page) => {
        await pay(page, 'Boleto bancário');
        await page.getByRole('heading', { name: 'Boleto gerado' }).waitFor();
      });
      await check('boleto-page', async (page) => {
        const result = await pay(page, 'Boleto bancário');
        await page.goto(result.bank_slip_url);
      });
    });

    test('the thank-you page and a page that cannot be found', async () => {
      await check('charge-done', (page) =>
        page.goto(`${server.origin}/pay/charges/${server.charges.open}/done`).then(() => undefined),
      );
      await check('not-found', (page) =>
        page.goto(`${server.origin}/pay/charges/00000000-0000-4000-8000-000000000000`).then(() => undefined),
      );
    });
  });
}
