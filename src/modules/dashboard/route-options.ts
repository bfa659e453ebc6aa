import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { DashboardAccess } from './dashboard-http.ts';
import type { Permission } from './roles.ts';
import { TAG } from './dashboard.schemas.ts';

/**
 * The config of a dashboard route: `open` to the API-key layer (the dashboard authenticates by its session cookie),
 * limited per client IP like the key routes, and the access the dashboard checks.
 */
export function dashboardConfig(access: Permission | 'signed_in' | 'signed_out') {
  const dashboard: DashboardAccess = access === 'signed_out' ? { signedOut: true } : { permission: access };
  return { access: 'open' as const, rateLimit: 'keyed' as const, dashboard };
}

export const tags = [TAG];

/** What the settings routes need of the app (the app's context has it): no import of the app from a module. */
export type DashboardDeps = {
  database: { db: Kysely<DB> };
  clock: () => Date;
  config: { masterKey: Buffer; publicUrl: string };
};
