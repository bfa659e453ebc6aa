import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { findAllowedHosts, findCompanyBySlug } from './accounts.repo.ts';
import { hostIsAllowed, requestOrigin } from './allowed-hosts.ts';
import { verifyKey, type VerifiedKey } from './api-keys.ts';
import { AppError, forbidden } from '../../http/errors.ts';

/**
 * Access levels of a route (route `config.access`):
 * - `key`: `Authorization: Bearer <client_api_key>` required; 401 when missing or invalid.
 * - `public`: no key needed, but the handler must call `assertPublicAccess` with the owning account:
 *   the Origin/Referer host must be allowed, or the request must carry a valid key of that account, or it
 *   must come from the service's own hosted pages (the PUBLIC_URL origin or a company subdomain of it).
 *   Any invalid key gets 403 (spec, Authentication 2). A route whose owner can be read from the raw request
 *   names it in `config.publicOwner`: the check then runs in `preValidation`, before the schema, the
 *   Idempotency-Key and the handler (docs/security.md, Order of checks).
 * - `open`: no restriction (upsell, webhook receivers, health, docs); the route authenticates itself if it must.
 */
export type Access = 'key' | 'public' | 'open';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /**
     * The account owning what a `public` request names, read from the raw (unvalidated) params or body;
     * undefined when the id names nothing, which leaves the answer to validation and the handler.
     */
    publicOwner?: (request: FastifyRequest) => Promise<string | undefined>;
  }
  interface FastifyRequest {
    apiKey: VerifiedKey | undefined;
    /** The browser request comes from this service's own hosted pages (PUBLIC_URL's host or a company subdomain of it). */
    fromHostedPages: boolean;
    /** The account whose host restriction this request passed, so the decision is taken once per request. */
    publicAccessGranted: string | undefined;
  }
}

/** `clock`: the app's, so a key's grace period ends when the app's time says. */
export function registerAuthentication(
  app: FastifyInstance,
  db: Kysely<DB>,
  publicUrl: string,
  clock: () => Date,
): void {
  const service = new URL(publicUrl);
  const servicePort = service.port || (service.protocol === 'https:' ? '443' : '80');
  app.decorateRequest('apiKey', undefined);
  app.decorateRequest('fromHostedPages', false);
  app.decorateRequest('publicAccessGranted', undefined);
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config?.access ?? 'open';
    if (access === 'open') return;
    const origin = requestOrigin(request.headers);
    request.fromHostedPages =
      origin !== undefined &&
      origin.port === servicePort &&
      (origin.hostname === service.hostname || origin.hostname.endsWith(`.${service.hostname}`));
    const header = request.headers.authorization;
    if (header === undefined) {
      if (access === 'key')
        throw new AppError('authentication_required', 'Send the API key as `Authorization: Bearer <key>`');
      return;
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const verified = match ? await verifyKey(db, match[1]!, clock()) : undefined;
    if (!verified) {
      if (access === 'key') throw new AppError('invalid_api_key', 'The API key is invalid, revoked or expired');
      throw forbidden('The API key is invalid, revoked or expired');
    }
    request.apiKey = verified;
  });
  // Registered after the input guard (app.ts), so a raw card number is still refused first. A refused caller
  // learns nothing from the schema or the business rules, and never reaches a stored idempotent answer.
  app.addHook('preValidation', async (request) => {
    const owner = request.routeOptions.config?.publicOwner;
    if (!owner) return;
    const accountId = await owner(request);
    if (accountId !== undefined) await assertPublicAccess(db, request, accountId);
  });
}

/** The authenticated account of a `key` route. */
export function requireAccount(request: FastifyRequest): string {
  if (!request.apiKey)
    throw new AppError('authentication_required', 'Send the API key as `Authorization: Bearer <key>`');
  return request.apiKey.accountId;
}

/** Lets a public request through only for an allowed origin of `ownerAccountId` or that account's own key. */
export async function assertPublicAccess(
  db: Kysely<DB>,
  request: FastifyRequest,
  ownerAccountId: string,
): Promise<void> {
  if (request.publicAccessGranted === ownerAccountId) return;
  await decidePublicAccess(db, request, ownerAccountId);
  request.publicAccessGranted = ownerAccountId;
}

async function decidePublicAccess(db: Kysely<DB>, request: FastifyRequest, ownerAccountId: string): Promise<void> {
  // The service's own hosted pages act for every account (merchants' code never runs on that origin).
  if (request.fromHostedPages && !request.apiKey) return;
  if (request.apiKey) {
    if (request.apiKey.accountId === ownerAccountId) return;
    throw forbidden('This API key belongs to another account');
  }
  const origin = requestOrigin(request.headers);
  if (!origin) throw forbidden('This endpoint is host-restricted: the request has no Origin or Referer');
  if (!hostIsAllowed(origin, await findAllowedHosts(db, ownerAccountId)))
    throw forbidden('This origin is not an allowed host of the account');
}

/**
 * The company named by a per-company host: `<company slug>.<public host>`, e.g. `acme.pay.example.com`
 * when PUBLIC_URL is `https://pay.example.com`. Undefined for any other host.
 */
export async function companyFromHost(db: Kysely<DB>, hostHeader: string | undefined, publicHostname: string) {
  if (!hostHeader) return undefined;
  const hostname = hostHeader.toLowerCase().replace(/:\d+$/, '');
  const suffix = `.${publicHostname.toLowerCase()}`;
  if (!hostname.endsWith(suffix)) return undefined;
  const slug = hostname.slice(0, -suffix.length);
  if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(slug)) return undefined;
  return findCompanyBySlug(db, slug);
}
