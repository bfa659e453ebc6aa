/** Browser tests of the hosted checkout: Debian's Chromium, the gateway sandboxes and the app on real ports. */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import {
  sandboxGatewayUrls,
  startSandboxes,
  type RunningSandboxes,
  type WebhookTarget,
} from '../../src/gateways/sandbox/server.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { ensureDemoCharges, type DemoCharges } from '../../src/modules/demo/demo-charges.ts';
import { demoMerchantDocument } from '../../src/modules/demo/demo-merchant.ts';
import { applyMerchant, type ApplyResult } from '../../src/modules/merchant-file/merchant-apply.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { createWorker } from '../../src/runtime.ts';
import { testConfig } from './app.ts';
import type { EngineCase } from './engines.ts';
import { freePort } from './ports.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');
export const TEST_CARDS = {
  approved: '4111111111111111',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
} as const;
// A 1×1 PNG served for the merchant's logo and product images (the tests have no internet).
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** One Chromium per test file, in a fresh profile; a missing binary fails the run, never skips it. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium) to run the browser tests${process.env.CI === 'true' ? ' (CI=true)' : ''}`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'checkout-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
    viewport: { width: 412, height: 915 },
    locale: 'pt-BR',
  });
  await context.route(/^https:\/\/images\.example\.com\//, (route) =>
    route.fulfill({ status: 200, contentType: 'image/png', body: PIXEL }),
  );
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export type CheckoutServer = {
  app: FastifyInstance;
  config: Config;
  origin: string;
  sandboxes: RunningSandboxes;
  merchant: ApplyResult;
  charges: DemoCharges;
  close(): Promise<void>;
};

const secret = (purpose: string) => createHash('sha256').update(`browser-tests:${purpose}`).digest('hex');

/** The demo merchant plus a gateway_b page; its allowed hosts include 127.0.0.1, where the app listens. */
export type CheckoutSuite = { database: Database; server: CheckoutServer };

/**
 * A suite's database of `engine` and a checkout server on it, closed after the suite; with `worker`, also the
 * worker `checkout serve` runs beside the API (see startServerWorker).
 */
export function useCheckoutServer(
  engine: EngineCase,
  ready: (setup: CheckoutSuite) => void,
  options: { worker?: boolean; clock?: () => Date; privateNotifications?: boolean } = {},
): void {
  let setup: CheckoutSuite | undefined;
  let worker: Worker | undefined;
  before(async () => {
    const database = await engine.open();
    const server = await startCheckoutServer(database, options.clock ? { clock: options.clock } : {});
    if (options.worker)
      worker = startServerWorker(database, server, { allowPrivateNetworks: options.privateNotifications ?? false });
    setup = { database, server };
    ready(setup);
  });
  after(async () => {
    await worker?.stop();
    await setup?.server.close();
    await setup?.database.close();
  });
}

/**
 * The worker `checkout serve` runs beside the API, started on `server`'s database and sandboxes: it applies
 * acknowledged webhooks (woken by the receiver in this process) and releases what a paid order unlocks.
 */
export function startServerWorker(
  database: Database,
  server: CheckoutServer,
  notifications: { allowPrivateNetworks: boolean } = { allowPrivateNetworks: false },
): Worker {
  const gatewayUrls = sandboxGatewayUrls(server.sandboxes);
  const worker = createWorker(database, createLogger('silent'), {
    masterKey: server.config.masterKey,
    gatewayUrls,
    clock: () => new Date(),
    // A test's own receiver listens on 127.0.0.1, a private address the service refuses unless allowed.
    notifications: { publicUrl: server.origin, ...notifications },
  });
  worker.start();
  return worker;
}

/** `clock`: the app's clock, for a test that moves time (the worker keeps the real one). */
export async function startCheckoutServer(
  database: Database,
  options: { clock?: () => Date } = {},
): Promise<CheckoutServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // Like a gateway dashboard: gateway_a posts its events to the service with the company's Basic credentials.
  const webhookTargets = (gateway: string): WebhookTarget | undefined =>
    gateway === 'gateway_a'
      ? {
          url: `${origin}/api/v1/webhooks`,
          basicAuth: { username: 'loja-demo-gateway-a', password: secret('webhook.gateway_a') },
        }
      : undefined;
  const sandboxes = await startSandboxes({ port: 0, webhookTargets, webhookRetryDelaysMs: [200, 1000] });
  const config = testConfig({ PUBLIC_URL: origin });
  const app = await buildApp({
    config,
    database,
    logger: createLogger('silent'),
    gatewayUrls: sandboxGatewayUrls(sandboxes),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await app.listen({ port, host: '127.0.0.1' });
  const document = demoMerchantDocument(secret);
  const company = document.companies[0]!;
  const ebook = company.checkout_pages![0]!;
  company.checkout_pages!.push({
    ...ebook,
    slug: 'gateway-b',
    page_title: 'E-book (gateway B)',
    gateway: 'gateway_b',
    enable_coupons: false,
  });
  company.checkout_pages!.push({
    ...ebook,
    slug: 'asks-payer',
    page_title: 'E-book (pagador identificado)',
    customer_data_at: 'end',
    asks_payer_identity: true,
  });
  company.checkout_pages!.push({
    ...ebook,
    slug: 'custom-code',
    page_title: 'Com código do vendedor',
    custom_code: '<script>document.title = "merchant"</script>',
    index_on_search_engines: true,
  });
  const merchant = await applyMerchant(database, config.masterKey, document, { now: new Date() });
  const charges = await ensureDemoCharges(
    database,
    config.masterKey,
    merchant.account_id,
    merchant.companies['loja-demo']!,
    merchant.products,
    new Date(),
  );
  return {
    app,
    config,
    origin,
    sandboxes,
    merchant,
    charges,
    close: async () => {
      // Chromium keeps pre-opened sockets that never carry a request (not "idle" to Node): drop them all.
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
      await sandboxes.close();
    },
  };
}

export type ServiceRequest = { method: string; url: string; body: string };

/** A new tab that records every request it sends to the service's origin (URL and body). */
export async function openTab(
  context: BrowserContext,
  origin: string,
): Promise<{ page: Page; requests: ServiceRequest[] }> {
  const page = await context.newPage();
  const requests: ServiceRequest[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(origin))
      requests.push({ method: request.method(), url: request.url(), body: request.postData() ?? '' });
  });
  return { page, requests };
}

/** No request to the service carries a test card number (in any formatting). */
export function assertNoCardNumbers(requests: ServiceRequest[]): void {
  assert.ok(requests.length > 0, 'the page sent requests to the service');
  for (const request of requests) {
    const text = `${decodeURIComponent(request.url)} ${request.body}`.replace(/[\s.-]/g, '');
    for (const card of Object.values(TEST_CARDS))
      assert.ok(!text.includes(card), `${request.method} ${request.url} carries a card number`);
  }
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Types a card into card 0 (or 1) of the form. */
/** Opens a checkout page and pays with one card: e-mail, the card method, the card form, then Pagar. */
export async function payWithCard(page: Page, url: string, email: string, number: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Cartão de crédito').check();
  await fillCard(page, number);
  await page.getByRole('button', { name: 'Pagar' }).click();
}

/** The payer's name and CPF a boleto asks for (the CPF typed bare; the page masks it). */
export async function fillPayer(page: Page, document = '52998224725'): Promise<void> {
  await page.getByLabel('Nome completo').fill('Maria da Silva');
  await page.getByLabel('CPF ou CNPJ').fill(document);
}

export async function fillCard(page: Page, number: string, index: 0 | 1 = 0): Promise<void> {
  const card = page.locator(`#card${index}`);
  await card.getByLabel('Número do cartão').fill(number);
  await card.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
  await card.getByLabel('Validade (MM/AA)').fill('12/34');
  await card.getByLabel('Código de segurança (CVV)').fill('123');
}
