/** A deployment on a fresh PostgreSQL database for the multi-process tests: a merchant and HTTP helpers. */

import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../../../src/db/database.ts';
import { testConfig } from '../../support/app.ts';
import { createMigratedPostgresDatabase, engines } from '../../support/engines.ts';
import {
  createMerchant,
  insertPage,
  ORIGIN,
  tokenA,
  type Merchant,
  type SandboxUrls,
} from '../../support/pay-fixtures.ts';
import { storeCredentials } from '../../support/webhooks-fixtures.ts';

/**
 * The PostgreSQL server these tests need. engines() enforces the CI rule (CI=true without DATABASE_URL
 * throws); elsewhere a missing DATABASE_URL skips them with that reason.
 */
export function postgresUrl(): string | undefined {
  return engines().some((engine) => engine.name === 'postgres') ? process.env.DATABASE_URL : undefined;
}

/** Multiplies the scenario sizes (SCALE_TEST_FACTOR, default 1): CI keeps 1, a local run may go bigger. */
export function scaleFactor(): number {
  const factor = Number(process.env.SCALE_TEST_FACTOR ?? '1');
  return Number.isInteger(factor) && factor >= 1 ? factor : 1;
}

export type ScaleMerchant = Merchant & { upsellPageId: string; pixPageBId: string };

export type Deployed = {
  database: Database;
  databaseUrl: string;
  masterKey: string;
  merchant: ScaleMerchant;
  drop(): Promise<void>;
};

/** A fresh database copied from the migrated template, with a merchant (three gateways, webhook credentials, an upsell page, a gateway_b pix page). */
export async function deploy(baseUrl: string): Promise<Deployed> {
  const fresh = await createMigratedPostgresDatabase(baseUrl);
  const database = await openDatabase({ engine: 'postgres', url: fresh.url, poolSize: 10 });
  const masterKey = randomBytes(32).toString('hex');
  const config = testConfig({ MASTER_KEY: masterKey });
  const merchant = await createMerchant(database, config);
  await storeCredentials(database, config, merchant);
  const upsellPageId = await insertPage(database.db, merchant, {
    products: [merchant.productId],
    plans: [merchant.cardPlanId],
    upsellProductId: merchant.upsellProductId,
  });
  const pixPageBId = await insertPage(database.db, merchant, {
    gateway: 'gateway_b',
    products: [merchant.productId],
    plans: [merchant.pixPlanId],
  });
  return {
    database,
    databaseUrl: fresh.url,
    masterKey,
    merchant: { ...merchant, upsellPageId, pixPageBId },
    drop: async () => {
      await database.close();
      await fresh.drop();
    },
  };
}

/** Rate limits are per process and would throttle a test that sends everything from one address. */
export const NO_RATE_LIMITS = {
  RATE_LIMIT_PUBLIC_PER_MINUTE: '0',
  RATE_LIMIT_KEY_PER_MINUTE: '0',
  RATE_LIMIT_IP_PER_MINUTE: '0',
};

export type Answer = { status: number; body: any; headers: Headers };

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // a non-JSON body stays text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** `POST /payments` body for one approved gateway_a card (a fresh single-use token) on `pageId`. */
export async function cardPayment(
  sandboxes: SandboxUrls,
  merchant: ScaleMerchant,
  options: { pageId?: string; productId?: number; email?: string } = {},
) {
  return {
    checkout_page_id: options.pageId ?? merchant.pageId,
    products: [{ id: options.productId ?? merchant.productId, quantity: 1 }],
    customer_email: options.email ?? `buyer-${randomBytes(4).toString('hex')}@example.com`,
    payment_plan_id: `${merchant.cardPlanId}-1`,
    credit_card_0_token: await tokenA(sandboxes),
  };
}

/** `POST /payments` body for a pix on gateway_a (the merchant's page) or gateway_b. */
export function pixPayment(merchant: ScaleMerchant, gateway: 'gateway_a' | 'gateway_b') {
  return {
    checkout_page_id: gateway === 'gateway_a' ? merchant.pageId : merchant.pixPageBId,
    products: [{ id: merchant.productId, quantity: 1 }],
    customer_email: `pix-${randomBytes(4).toString('hex')}@example.com`,
    payment_plan_id: `${merchant.pixPlanId}-1`,
  };
}

export const PUBLIC_ORIGIN = ORIGIN;
