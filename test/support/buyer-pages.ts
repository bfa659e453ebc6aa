/** What the buyer's browser tests share: axe-core, screenshots under test-results/buyer, the form and its pay call. */

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { openTab } from './browser.ts';

export const SHOTS = join(process.cwd(), 'test-results', 'buyer');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const PAY_PATH = /\/api\/v1\/(payments|carts\/[^/]+\/pay|charges\/[^/]+\/pay)$/;

export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** The serious and critical axe-core violations of the page as it stands, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations;
  })) as Array<{ id: string; impact: string | null; nodes: { target: string[] }[] }>;
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/**
 * A screenshot of an image as the page draws it at 1x, with 16 px of the white page around it: what a phone
 * camera or a bank app's screen reader gets, no bytes of the image itself.
 */
export async function shotOf(page: Page, image: Locator): Promise<Buffer> {
  await image.scrollIntoViewIfNeeded();
  await image.evaluate((element: HTMLImageElement) => element.decode());
  const box = (await image.boundingBox())!;
  const margin = 16;
  return page.screenshot({
    clip: { x: box.x - margin, y: box.y - margin, width: box.width + 2 * margin, height: box.height + 2 * margin },
  });
}

/** Opens a form at 390 px, picks the method; on a checkout page, types the e-mail. */
export async function openForm(context: BrowserContext, origin: string, url: string, method: string) {
  const tab = await openTab(context, origin);
  await tab.page.setViewportSize({ width: 390, height: 844 });
  await tab.page.goto(url);
  const email = tab.page.getByLabel('E-mail');
  if ((await email.count()) && !(await email.inputValue())) await email.fill('comprador@example.com');
  await tab.page.getByLabel(method).check();
  return tab;
}

/** Presses Pagar and returns the pay endpoint's answer, which must be a 200. */
export async function pay(page: Page): Promise<Record<string, unknown> & { bank_slip_url?: string }> {
  const answer = page.waitForResponse((response) => PAY_PATH.test(new URL(response.url()).pathname));
  await page.getByRole('button', { name: 'Pagar' }).click();
  const response = await answer;
  assert.equal(response.status(), 200, await response.text());
  return response.json();
}

/** "R$ 1.234,56" as the pages print it (a no-break space after R$). */
export function brl(amountCents: number): string {
  const reais = Math.floor(amountCents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `R$\u00a0${reais},${String(amountCents % 100).padStart(2, '0')}`;
}

/** The cents of a printed amount (its digits). */
export function cents(text: string): number {
  return Number(text.replace(/[^\d]/g, ''));
}
