import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/database.ts';
import { constantTimeEqual } from '../lib/crypto.ts';
import { AppError } from './errors.ts';

/** Prometheus metrics at /metrics: request latency per route, database pool, failed webhook events, process defaults. */
/** A module's own gauges, read from the database at each scrape. */
export type ModuleMetrics = (registry: Registry, database: Database) => void;

export function registerMetrics(
  app: FastifyInstance,
  database: Database,
  token: string | undefined,
  moduleMetrics: ModuleMetrics[],
): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = database.poolStats();
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
  for (const register of moduleMetrics) register(registry, database);
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: ids in paths would explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    latency.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true }, config: { access: 'open' } }, async (request, reply) => {
    if (token && !constantTimeEqual(request.headers.authorization ?? '', `Bearer ${token}`)) {
      throw new AppError('authentication_required', 'Metrics require the METRICS_TOKEN bearer token');
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
  return registry;
}
