/** Shared fixtures of the webhook receiver tests: an app on a real port, sandboxes that deliver to it, credentials. */

import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import assert from 'node:assert/strict';
import type { GatewayName } from '../../src/gateways/port.ts';
import { seal } from '../../src/lib/crypto.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { webhookJobHandlers } from '../../src/modules/webhooks/webhook-jobs.ts';
import { useWebhookOptions, type WebhookOptions } from '../../src/modules/webhooks/webhooks.routes.ts';
import { PROCESS_EVENT_JOB } from '../../src/modules/webhooks/webhooks.service.ts';
import { startLocalSandboxes, type LocalSandboxes } from '../../src/sandbox-runtime.ts';
import { testConfig } from './app.ts';
import { createMerchant, type Merchant } from './pay-fixtures.ts';

export type WebhookCredentials = {
  gatewayA: { username: string; password: string };
  gatewayB: string;
  bank: { username: string; password: string };
  invoicing: { username: string; password: string };
};

export function credentialsFor(merchant: Merchant): WebhookCredentials {
  return {
    gatewayA: { username: `a-${merchant.companyId}`, password: `pa-${merchant.slug}` },
    gatewayB: `whsec_${merchant.slug}`,
    bank: { username: `bank-${merchant.companyId}`, password: `pb-${merchant.slug}` },
    invoicing: { username: `inv-${merchant.slug}`, password: `pi-${merchant.slug}` },
  };
}

export async function storeCredentials(
  database: Database,
  config: Config,
  merchant: Merchant,
  previousGatewayB?: string,
): Promise<WebhookCredentials> {
  const credentials = credentialsFor(merchant);
  const rows = [
    { receiver: 'gateway_a', username: credentials.gatewayA.username, secret: credentials.gatewayA.password },
    { receiver: 'gateway_b', username: null, secret: credentials.gatewayB },
    { receiver: 'bank', username: credentials.bank.username, secret: credentials.bank.password },
    { receiver: 'invoicing', username: credentials.invoicing.username, secret: credentials.invoicing.password },
  ];
  for (const row of rows) {
    await database.db
      .insertInto('company_webhook_credentials')
      .values({
        account_id: merchant.accountId,
        company_id: merchant.companyId,
        receiver: row.receiver,
        username: row.username,
        secret_encrypted: seal(config.masterKey, row.secret),
        previous_secret_encrypted:
          row.receiver === 'gateway_b' && previousGatewayB ? seal(config.masterKey, previousGatewayB) : null,
      })
      .execute();
  }
  return credentials;
}

export type WebhookApp = {
  app: FastifyInstance;
  config: Config;
  url: string;
  merchant: Merchant;
  other: Merchant;
  credentials: WebhookCredentials;
  sandboxes: LocalSandboxes;
  close(): Promise<void>;
};

/** Two merchants with webhook credentials, sandboxes delivering to the app listening on a real port. */
export async function startWebhookApp(database: Database, options: Partial<WebhookOptions> = {}): Promise<WebhookApp> {
  const config = testConfig();
  const merchant = await createMerchant(database, config);
  const other = await createMerchant(database, config);
  const credentials = await storeCredentials(database, config, merchant, 'whsec_previous');
  await storeCredentials(database, config, other);
  let url: string | undefined;
  const sandboxes = await startLocalSandboxes(database, config, () => url);
  const restore = useWebhookOptions(options);
  const app = await buildApp({ config, database, logger: createLogger('silent'), gatewayUrls: sandboxes.urls });
  restore();
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  url = address;
  return {
    app,
    config,
    url,
    merchant,
    other,
    credentials,
    sandboxes,
    close: async () => {
      await sandboxes.close();
      await app.close();
    },
  };
}

export function basic(username: string, password: string): { authorization: string } {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 8_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * What the worker does after a receiver's 200: runs the due `webhooks.process_event` jobs (claim, apply,
 * mark done, or schedule the retry of a failure) until none is due. Jobs of other types stay queued.
 * `clock` is the worker's "now": one ahead of the real clock makes retries scheduled with backoff due.
 * `masterKey` is the app's, for a paid event whose card is kept (sealed with it, charged later by the app);
 * without one a throwaway key stands in. Returns how many job runs were made.
 */
export async function runWebhookJobs(
  database: Database,
  options: { clock?: () => Date; masterKey?: Buffer } = {},
): Promise<number> {
  const handlers = webhookJobHandlers({ masterKey: options.masterKey ?? randomBytes(32), clock: () => new Date() });
  const worker = new Worker({
    database,
    handlers,
    types: [PROCESS_EVENT_JOB],
    logger: createLogger('silent'),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  let runs = 0;
  for (let batch = 0; batch < 100; batch++) {
    const ran = await worker.runOnce();
    if (ran === 0) return runs;
    runs += ran;
  }
  throw new Error('webhook jobs still due after 100 batches');
}

/** The buyer pays at the sandbox, which delivers the gateway's real webhook to the app; the worker's webhook job applies it. */
export async function confirmAtSandbox(
  hooks: WebhookApp,
  database: Database,
  charge: { gateway: GatewayName; gatewayId: string; orderId: number },
): Promise<void> {
  const res = await fetch(`${hooks.sandboxes.urls[charge.gateway]}/sandbox/charges/${charge.gatewayId}/confirm`, {
    method: 'POST',
  });
  assert.equal(res.status, 200, await res.text());
  await waitFor(async () => {
    await runWebhookJobs(database);
    const order = await database.db
      .selectFrom('orders')
      .select('status')
      .where('id', '=', charge.orderId)
      .executeTakeFirstOrThrow();
    return order.status === 'paid' ? true : undefined;
  });
}
