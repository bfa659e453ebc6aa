import { isIPv6 } from 'node:net';
import type { RateLimits } from '../config.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TokenBuckets } from '../lib/token-buckets.ts';
import { AppError } from './errors.ts';

/**
 * Which limit a route falls under (route `config.rateLimit`). By default `key` routes are `keyed`,
 * `public` routes are `public`, and `open` routes are not limited: webhook receivers must never drop a
 * gateway's retries, and health, metrics and docs are cheap.
 */
export type RateLimitClass = 'public' | 'keyed' | 'none';

declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimit?: RateLimitClass;
  }
}

/** A bucket holds ten seconds' worth of requests, so a burst passes but a flood is cut within seconds. */
const BURST_SECONDS = 10;

function buckets(perMinute: number): TokenBuckets | undefined {
  if (perMinute <= 0) return undefined;
  return new TokenBuckets({ perMinute, burst: Math.max(1, Math.ceil((perMinute * BURST_SECONDS) / 60)) });
}

/**
 * The client as the limiter counts it: `request.ip` (the socket address, or with TRUST_PROXY the
 * X-Forwarded-For client), IPv4-mapped IPv6 as IPv4, and IPv6 by its /64, since one host usually holds
 * a whole /64 and could otherwise take a fresh bucket per address.
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

function routeClass(request: FastifyRequest): RateLimitClass {
  const config = request.routeOptions.config;
  if (config?.rateLimit) return config.rateLimit;
  return config?.access === 'key' ? 'keyed' : config?.access === 'public' ? 'public' : 'none';
}

function refuse(retryAfterSeconds: number): AppError {
  return new AppError('rate_limited', `Too many requests; retry after ${retryAfterSeconds} seconds`, [], {
    'retry-after': String(retryAfterSeconds),
  });
}

/**
 * Register before authentication: the per-IP check runs first, so a flood is refused before any key
 * lookup; the per-key check runs once the key is verified (preParsing, before the body is read).
 */
export function registerRateLimiting(app: FastifyInstance, limits: RateLimits, clock: () => Date): void {
  const byIp = { public: buckets(limits.publicPerMinute), keyed: buckets(limits.ipPerMinute) };
  const byKey = buckets(limits.keyPerMinute);
  app.addHook('onRequest', async (request) => {
    const kind = routeClass(request);
    if (kind === 'none') return;
    const outcome = byIp[kind]?.take(clientKey(request.ip), clock().getTime());
    if (outcome && !outcome.allowed) throw refuse(outcome.retryAfterSeconds);
  });
  if (!byKey) return;
  app.addHook('preParsing', async (request) => {
    if (!request.apiKey || routeClass(request) === 'none') return;
    const outcome = byKey.take(request.apiKey.apiKeyId, clock().getTime());
    if (!outcome.allowed) throw refuse(outcome.retryAfterSeconds);
  });
}
