import { isDeepStrictEqual } from 'node:util';
import { changeEndpoint, createEndpoint, findEndpointByUrl } from '../notifications/index.ts';
import type { NotificationEndpointDocument } from './merchant-document.ts';
import { resolved, type Trx } from './merchant-apply.support.ts';

export type AppliedEndpoints = {
  /** Endpoint ids by url. */
  ids: Record<string, string>;
  /** Signing secrets of the endpoints this apply created, by url: the only time they can be shown. */
  secrets: Record<string, string>;
};

/**
 * Creates the endpoints the document lists (matched by url within the account) and rewrites the ones
 * whose settings differ. Secrets are generated here, never read from the file; endpoints the document
 * does not list are left alone.
 */
export async function applyNotificationEndpoints(
  scope: { trx: Trx; accountId: string; now: Date },
  masterKey: Buffer,
  endpoints: readonly NotificationEndpointDocument[],
  companyIds: ReadonlyMap<string, number>,
): Promise<AppliedEndpoints> {
  const applied: AppliedEndpoints = { ids: {}, secrets: {} };
  for (const endpoint of endpoints) {
    const desired = {
      url: endpoint.url,
      companyId: endpoint.company === undefined ? null : resolved(companyIds, endpoint.company, 'company'),
      eventTypes: [...new Set(endpoint.events ?? [])],
      enabled: endpoint.enabled ?? true,
      description: endpoint.description ?? null,
    };
    const stored = await findEndpointByUrl(scope.trx, scope.accountId, endpoint.url);
    if (!stored) {
      const created = await createEndpoint(scope.trx, masterKey, { ...desired, accountId: scope.accountId }, scope.now);
      applied.ids[endpoint.url] = created.endpoint.id;
      applied.secrets[endpoint.url] = created.secret;
      continue;
    }
    const current = {
      url: stored.url,
      companyId: stored.company_id,
      eventTypes: stored.event_types,
      enabled: stored.enabled,
      description: stored.description,
    };
    if (!isDeepStrictEqual(current, desired)) await changeEndpoint(scope.trx, stored, desired, scope.now);
    applied.ids[endpoint.url] = stored.id;
  }
  return applied;
}
