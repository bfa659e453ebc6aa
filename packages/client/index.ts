/**
 * A typed client of the checkout API: openapi-fetch over the types openapi-typescript generates from the
 * service's OpenAPI document (schema.d.ts; `npm run client:generate`). Paths, parameters, bodies and answers are
 * checked by the compiler:
 *
 *   const checkout = createCheckoutClient('http://127.0.0.1:3000', { apiKey });
 *   const { data, error } = await checkout.GET('/orders/{id}', { params: { path: { id: 42 } } });
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';

export type CheckoutClientOptions = {
  /** The account's `client_api_key`, sent as `Authorization: Bearer …` (public operations work without it). */
  apiKey?: string;
  /** Extra headers on every request (for example `Origin` for host-restricted public operations). */
  headers?: Record<string, string>;
  /** A fetch implementation; the global one by default. */
  fetch?: typeof fetch;
};

export type CheckoutClient = Client<paths>;

/** A client of the service at `baseUrl` (its origin, with or without the `/api/v1` prefix). */
export function createCheckoutClient(baseUrl: string, options: CheckoutClientOptions = {}): CheckoutClient {
  const root = baseUrl.replace(/\/+$/, '');
  return createClient<paths>({
    baseUrl: root.endsWith('/api/v1') ? root : `${root}/api/v1`,
    headers: { ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}), ...options.headers },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
