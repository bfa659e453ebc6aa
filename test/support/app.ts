import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { createLogger } from '../../src/lib/logger.ts';
import type { EngineCase } from './engines.ts';
import { generateKey, storeKey } from '../../src/modules/accounts/api-keys.ts';

/** Limits high enough that no ordinary test is throttled; pass RATE_LIMIT_* overrides to test the limiter. */
export const TEST_RATE_LIMITS = {
  RATE_LIMIT_PUBLIC_PER_MINUTE: '100000000',
  RATE_LIMIT_KEY_PER_MINUTE: '100000000',
  RATE_LIMIT_IP_PER_MINUTE: '100000000',
};

export function testConfig(overrides: NodeJS.ProcessEnv = {}): Config {
  return loadConfig({
    MASTER_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'checkout-test-')),
    PUBLIC_URL: 'http://pay.test',
    LOG_LEVEL: 'info',
    // Tests send many requests from 127.0.0.1: the limiter runs, with limits no test reaches
    // (test/http/rate-limit.test.ts exercises the defaults).
    ...TEST_RATE_LIMITS,
    ...overrides,
  });
}

/** Every log line the app writes, kept so tests can assert what was (and was not) logged. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export async function startTestApp(
  database: Database,
  env: NodeJS.ProcessEnv = {},
): Promise<{ app: FastifyInstance; config: Config; logs: LogCapture }> {
  const config = testConfig(env);
  const logs = new LogCapture();
  const app = await buildApp({ config, database, logger: createLogger('info', logs) });
  await app.ready();
  return { app, config, logs };
}

export type Tenant = { accountId: string; companyId: number; apiKey: string; slug: string };

/** An account with one primary company and an API key, inserted directly. */
export async function createTenant(database: Database, options: { allowedHosts?: string[] } = {}): Promise<Tenant> {
  const accountId = randomUUID();
  const slug = `t-${randomBytes(5).toString('hex')}`;
  await database.db
    .insertInto('accounts')
    .values({ id: accountId, name: `Tenant ${slug}`, slug, allowed_hosts: options.allowedHosts ?? [] })
    .execute();
  const company = await database.db
    .insertInto('companies')
    .values({ account_id: accountId, name: `Company ${slug}`, slug, is_primary: true })
    .returning('id')
    .executeTakeFirstOrThrow();
  const key = generateKey();
  await storeKey(database.db, accountId, key);
  return { accountId, companyId: company.id, apiKey: key.plaintext, slug };
}

export function bearer(key: string): { authorization: string } {
  return { authorization: `Bearer ${key}` };
}

export type TwoShops = { database: Database; app: FastifyInstance; shop: Tenant; other: Tenant };

/**
 * The hooks of a suite with the app and two tenants: `shop` (allowed host shop.example) and `other`
 * (other.example), handed to `ready`; after, the app and the database are closed.
 */
export function useTwoShops(engine: EngineCase, ready: (setup: TwoShops) => unknown): void {
  let setup: TwoShops | undefined;
  before(async () => {
    const database = await engine.open();
    const { app } = await startTestApp(database);
    setup = {
      database,
      app,
      shop: await createTenant(database, { allowedHosts: ['shop.example'] }),
      other: await createTenant(database, { allowedHosts: ['other.example'] }),
    };
    await ready(setup);
  });
  after(async () => {
    await setup?.app.close();
    await setup?.database.close();
  });
}
