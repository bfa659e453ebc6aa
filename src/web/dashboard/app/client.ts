/**
 * Every call the dashboard makes to the service: the typed client of the dashboard's own API, openapi-fetch over the
 * types generated from the OpenAPI document (packages/client), so a page's paths, parameters and answers are checked
 * by the compiler, and the answers' types below come from the same document. The session cookie rides along; each
 * change carries the CSRF token; an error answer becomes an ApiError with the service's code, message and details.
 */
import { createCheckoutClient, type paths } from '../../../../packages/client/index.ts';

export type FieldError = { field: string; message: string };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldError[] = [],
  ) {
    super(message);
  }
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The JSON a dashboard operation answers with (its 200 or 201), as generated from the OpenAPI document. */
export type Answer<P extends keyof paths, M extends Method> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer T } } };
}
  ? T
  : paths[P][M] extends { responses: { 201: { content: { 'application/json': infer T } } } }
    ? T
    : never;
/** The JSON body an operation takes. */
export type Body<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

export type Session = Answer<'/dashboard/session', 'get'>;
export type Role = Session['user']['role'];

let csrfToken = '';

/** Keeps the session's CSRF token, which every change must carry. */
export function rememberSession<T extends { csrf_token: string }>(session: T): T {
  csrfToken = session.csrf_token;
  return session;
}

export const dashboardClient = createCheckoutClient(location.origin);
dashboardClient.use({
  onRequest({ request }) {
    if (request.method !== 'GET') request.headers.set('x-csrf-token', csrfToken);
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
