import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/**
 * CORS for the browser-facing API only (docs/security.md, CORS): the `public` routes, and the `open` ones a
 * checkout front-end calls (`rateLimit: 'public'`: upsell, appointment slots). The request's origin is
 * reflected: who may act is still decided by the host restriction, which answers 403 to a disallowed origin.
 * Key routes get none (a key never belongs in a browser), nor do the webhook receivers.
 */
const API_PREFIX = '/api/v1/';
const ALLOWED_HEADERS = 'Content-Type, Idempotency-Key';
const EXPOSED_HEADERS = 'Idempotent-Replayed, X-Request-Id, Retry-After';
const MAX_AGE_SECONDS = '600';

function isBrowserRoute(route: RouteOptions): boolean {
  if (!route.url.startsWith(API_PREFIX) || route.url.startsWith(`${API_PREFIX}webhooks`)) return false;
  const config = route.config;
  return config?.access === 'public' || (config?.access === 'open' && config.rateLimit === 'public');
}

/** The Origin header when it is a serialised http(s) origin; anything else (`null`, a path, junk) gets no CORS. */
function corsOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return undefined;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin ? origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Register before the routes (an `onRoute` hook collects them) and before rate limiting and authentication,
 * so a 429 or 403 still carries the headers and the browser can show it.
 */
export function registerCors(app: FastifyInstance): void {
  // Route URL pattern → the browser-facing methods on it (POST /carts/{id} is a key route; GET is public).
  const browserRoutes = new Map<string, Set<string>>();

  const preflight = (methods: Set<string>) => async (request: FastifyRequest, reply: FastifyReply) => {
    const allowed = [...methods].join(', ');
    reply.header('allow', `${allowed}, OPTIONS`).header('vary', 'Origin');
    const origin = corsOrigin(request);
    if (origin) {
      reply
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-methods', allowed)
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', MAX_AGE_SECONDS);
    }
    return reply.code(204).send();
  };

  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().filter((method) => method !== 'OPTIONS');
    if (methods.length === 0 || !isBrowserRoute(route)) return;
    let allowed = browserRoutes.get(route.url);
    if (!allowed) {
      allowed = new Set();
      browserRoutes.set(route.url, allowed);
      app.route({
        method: 'OPTIONS',
        url: route.url,
        schema: { hide: true },
        config: { access: 'open', rateLimit: 'public' },
        handler: preflight(allowed),
      });
    }
    for (const method of methods) allowed.add(method);
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!browserRoutes.get(request.routeOptions.url ?? '')?.has(request.method)) return;
    reply.header('vary', 'Origin');
    const origin = corsOrigin(request);
    if (origin)
      reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSED_HEADERS);
  });
}
