/**
 * The typed client of the dashboard's own API: openapi-fetch over the types generated from the OpenAPI document
 * (packages/client), so a page's paths, parameters and answers are checked by the compiler. The session cookie rides
 * along; each change carries the CSRF token; an error answer becomes an ApiError, as with api.ts.
 */
import { createCheckoutClient, type paths } from '../../../../packages/client/index.ts';
import { ApiError, currentCsrf, type FieldError } from './api.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The JSON a dashboard operation answers with (its 200 or 201), as generated from the OpenAPI document. */
export type Answer<P extends keyof paths, M extends Method> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer T } } };
}
  ? T
  : paths[P][M] extends { responses: { 201: { content: { 'application/json': infer T } } } }
    ? T
    : never;

/**
 * A query the service reads Rails-style: a list as `key[]=a&key[]=b`, the form `GET /orders` documents and the
 * pages keep in their URLs.
 */
export function railsQuery(query: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    for (const item of Array.isArray(value) ? value : [value])
      parts.push(`${encodeURIComponent(Array.isArray(value) ? `${key}[]` : key)}=${encodeURIComponent(String(item))}`);
  }
  return parts.join('&');
}

export const dashboardClient = createCheckoutClient(location.origin);
dashboardClient.use({
  onRequest({ request }) {
    if (request.method !== 'GET') request.headers.set('x-csrf-token', currentCsrf());
    return request;
  },
});

type ErrorBody = { code: string; message: string; details: FieldError[] };

/** The answer's data, or an ApiError carrying the service's code, message and field errors. */
export async function answer<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (error !== undefined || !response.ok) {
    const body = (error ?? {}) as Partial<ErrorBody>;
    throw new ApiError(
      response.status,
      body.code ?? 'unknown',
      body.message ?? response.statusText,
      body.details ?? [],
    );
  }
  return data as T;
}
