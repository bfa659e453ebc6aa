import { constants, publicEncrypt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { startSandboxes, type RunningSandboxes } from '../../src/gateways/sandbox/server.ts';
import { seal } from '../../src/lib/crypto.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { LogCapture, testConfig, type Tenant } from './app.ts';

/** gateway_c credentials as the sandbox accepts them: an encryption key (`ek_`) and an api key (`ak_`). */
export const GATEWAY_C_KEYS = {
  encryptionKey: 'ek_test_card-hash_0123456789',
  apiKey: 'ak_test_card-hash_0123456789abcdef',
};

export const SHOP_ORIGIN = { origin: 'https://shop.example' };
export const STRANGER_ORIGIN = { origin: 'https://stranger.example' };

/** The three gateway sandboxes on a free port, without webhook delivery. */
export function startGatewaySandboxes(now?: () => Date): Promise<RunningSandboxes> {
  return startSandboxes({ port: 0, webhookTargets: () => undefined, ...(now ? { now } : {}) });
}

/** A real app whose gateway_c calls go to `gatewayCUrl` (none: gateway_c is not configured). */
export async function startCardHashApp(
  database: Database,
  options: { gatewayCUrl?: string; clock?: () => Date } = {},
): Promise<{ app: FastifyInstance; config: Config }> {
  const config = testConfig();
  const app = await buildApp({
    config,
    database,
    logger: createLogger('info', new LogCapture()),
    gatewayUrls: options.gatewayCUrl ? { gateway_c: options.gatewayCUrl } : {},
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await app.ready();
  return { app, config };
}

type IntegrationOptions = {
  companyId?: number;
  enabled?: boolean;
  encryptionKey?: string | null;
  apiKey?: string | null;
};

/** The company's gateway_c integration, with the api key sealed under the app's master key. */
export async function addGatewayC(
  database: Database,
  tenant: Tenant,
  masterKey: Buffer,
  options: IntegrationOptions = {},
): Promise<void> {
  const apiKey = options.apiKey === undefined ? GATEWAY_C_KEYS.apiKey : options.apiKey;
  await database.db
    .insertInto('company_gateways')
    .values({
      account_id: tenant.accountId,
      company_id: options.companyId ?? tenant.companyId,
      gateway: 'gateway_c',
      enabled: options.enabled ?? true,
      public_key: options.encryptionKey === undefined ? GATEWAY_C_KEYS.encryptionKey : options.encryptionKey,
      secret_encrypted: apiKey === null ? null : seal(masterKey, apiKey),
    })
    .execute();
}

/** What a browser does with a served key, written from the format rules: RSA PKCS#1 v1.5, base64, `<id>_` prefix. */
export function encryptCard(key: { id: number; public_key: string }, cardNumber = '4111111111111111'): string {
  const plaintext = `card_number=${cardNumber}&card_holder_name=${encodeURIComponent('MARIA DA SILVA')}&card_expiration_date=1230&card_cvv=123`;
  return `${key.id}_${publicEncrypt({ key: key.public_key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(plaintext)).toString('base64')}`;
}
