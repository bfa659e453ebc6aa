import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Per-process request limits (token buckets in memory: no database round trip). Behind a load balancer
 * with N processes a client gets up to N times these figures; docs/security.md explains the sizing.
 * A figure of 0 turns that limit off.
 */
export type RateLimits = {
  /** Per client IP on public endpoints (host-restricted checkout reads and writes, upsell, slots, hosted pages). */
  publicPerMinute: number;
  /** Per API key, wherever a valid key is sent. */
  keyPerMinute: number;
  /** Per client IP on key endpoints (looser: a merchant's servers may share one address). */
  ipPerMinute: number;
};

export type Config = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  publicUrl: string;
  /** 32 bytes that encrypt secrets at rest (gateway keys, webhook secrets, saved-method references). */
  masterKey: Buffer;
  masterKeySource: 'environment' | 'generated';
  logLevel: string;
  production: boolean;
  bodyLimitBytes: number;
  dbPoolSize: number;
  metricsToken: string | undefined;
  trustProxy: boolean;
  /** Per-process request limits per client IP and per API key (0 turns one off). */
  rateLimits: RateLimits;
  /** How long a worker's claim on a job lasts; a job still running after it is presumed lost and run again. */
  jobLeaseMs: number;
  /** Whether merchant notifications may go to loopback and private addresses; unset: only under `checkout start`. */
  notificationsAllowPrivateNetworks: boolean | undefined;
  /** Live or standalone gateway endpoints; a gateway without one is served by the in-process sandbox. */
  gatewayUrls: Partial<Record<'gateway_a' | 'gateway_b' | 'gateway_c', string>>;
  /** Where dashboard invites are sent from (smtp:// or smtps://); unset: invite links are only shown. */
  smtpUrl: string | undefined;
  mailFrom: string;
};

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function optionalBoolean(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  return raw === 'true';
}

function url(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: string | undefined,
  protocols: string[],
): string | undefined {
  const raw = env[name] || fallback;
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${redactUrl(raw)}"`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must use ${protocols.join(' or ')}`);
  return raw;
}

function redactUrl(raw: string): string {
  return raw.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * MASTER_KEY is 64 hex characters or 44 base64 characters (32 bytes). Outside production a missing key
 * is generated once and kept in DATA_DIR, so a development install restarts with the same secrets.
 */
function masterKey(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  production: boolean,
): Pick<Config, 'masterKey' | 'masterKeySource'> {
  const raw = env.MASTER_KEY;
  if (raw) {
    const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (key.length !== 32)
      throw new ConfigError('MASTER_KEY must be 32 bytes: 64 hex characters or 44 base64 characters');
    return { masterKey: key, masterKeySource: 'environment' };
  }
  if (production) throw new ConfigError('MASTER_KEY is required when NODE_ENV=production');
  const file = join(dataDir, 'master.key');
  if (existsSync(file))
    return { masterKey: Buffer.from(readFileSync(file, 'utf8').trim(), 'hex'), masterKeySource: 'generated' };
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600 });
  return { masterKey: key, masterKeySource: 'generated' };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const dataDir = resolve(env.DATA_DIR || './data');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const publicUrl = url(env, 'PUBLIC_URL', `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`, [
    'http:',
    'https:',
  ])!;
  return {
    port,
    host,
    databaseUrl: url(env, 'DATABASE_URL', undefined, ['postgres:', 'postgresql:']),
    dataDir,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    ...masterKey(env, dataDir, production),
    logLevel,
    production,
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 50 * 1_048_576),
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 200),
    metricsToken: env.METRICS_TOKEN || undefined,
    trustProxy: env.TRUST_PROXY === 'true',
    rateLimits: {
      publicPerMinute: integer(env, 'RATE_LIMIT_PUBLIC_PER_MINUTE', 600, 0, 1_000_000_000),
      keyPerMinute: integer(env, 'RATE_LIMIT_KEY_PER_MINUTE', 3000, 0, 1_000_000_000),
      ipPerMinute: integer(env, 'RATE_LIMIT_IP_PER_MINUTE', 6000, 0, 1_000_000_000),
    },
    jobLeaseMs: integer(env, 'JOB_LEASE_SECONDS', 300, 1, 86_400) * 1000,
    notificationsAllowPrivateNetworks: optionalBoolean(env, 'NOTIFICATIONS_ALLOW_PRIVATE_NETWORKS'),
    smtpUrl: url(env, 'SMTP_URL', undefined, ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM || 'Checkout <no-reply@localhost>',
    gatewayUrls: Object.fromEntries(
      (['gateway_a', 'gateway_b', 'gateway_c'] as const).flatMap((name) => {
        const value = url(env, `${name.toUpperCase()}_URL`, undefined, ['http:', 'https:']);
        return value ? [[name, value.replace(/\/+$/, '')]] : [];
      }),
    ),
  };
}
