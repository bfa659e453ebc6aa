/** The dashboard's browser checks: axe-core injected into the page, and screenshots at desktop and phone widths. */

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import { runUsersCommand } from '../../src/modules/dashboard/index.ts';

export const DASHBOARD_SCREENSHOTS = join(process.cwd(), 'test-results', 'dashboard');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

type AxeViolation = { id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> };

/** No serious or critical axe-core violation on the page as it is now. */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  // Evaluated through the DevTools protocol: the dashboard's CSP (script-src 'self') refuses an injected tag.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  const blocking = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    blocking.map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    ),
    [],
    `${name}: accessibility violations`,
  );
}

/** Full-page screenshots at 1280 and 390 px, then back to 1280; the page must stay usable at 390 (no sideways scroll). */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(DASHBOARD_SCREENSHOTS, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: join(DASHBOARD_SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
    if (width === 390) {
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 1, `${name} scrolls sideways by ${overflow}px at 390 px`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Every page gets both checks. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await assertAccessible(page, name);
  await screenshots(page, name);
}

/** A user added by `checkout users add` for the demo account, as its one-time link and the CLI's answer. */
export async function addDashboardUser(
  database: Database,
  origin: string,
  email: string,
  role: 'owner' | 'admin' | 'finance' | 'support',
  now = new Date(),
): Promise<{ sign_in_url: string }> {
  return runUsersCommand(['add', '--account', 'demo', '--email', email, '--role', role], {
    db: database.db,
    publicUrl: origin,
    now,
  });
}

/** Opens a user's one-time link, chooses `password` and waits for the home figures. */
export async function signInFirstTime(page: Page, signInUrl: string, password: string): Promise<void> {
  await page.goto(signInUrl);
  await page.getByLabel('Escolha sua senha').fill(password);
  await page.getByRole('button', { name: 'Continuar' }).click();
  await page.getByRole('heading', { name: 'Vendas' }).waitFor();
}
