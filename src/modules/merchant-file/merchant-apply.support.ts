import { isDeepStrictEqual } from 'node:util';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { constantTimeEqual, unseal } from '../../lib/crypto.ts';

/** The transaction every step of one apply runs in. */
export type Trx = Kysely<DB>;

/** Where a company's rows go: its tenant, its id, and the instant the apply stamps on changes. */
export type CompanyScope = { trx: Trx; accountId: string; companyId: number; now: Date };

/** A document that is valid on its own but conflicts with what is stored (another tenant's slug, a key in use). */
export class MerchantApplyError extends Error {
  override readonly name = 'MerchantApplyError';
}

/** The columns of `desired` whose stored value differs, so an unchanged row is not rewritten. */
export function changedColumns<T extends Record<string, unknown>>(
  stored: Record<string, unknown>,
  desired: T,
): Partial<T> {
  const changed = Object.entries(desired).filter(([column, value]) => !sameValue(stored[column], value));
  return Object.fromEntries(changed) as Partial<T>;
}

/** The fields a document states: an omitted (undefined) one is left as it is stored. */
export function statedOnly<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as never;
}

export function hasChanges(changed: object): boolean {
  return Object.keys(changed).length > 0;
}

function sameValue(stored: unknown, desired: unknown): boolean {
  if (stored instanceof Date && desired instanceof Date) return stored.getTime() === desired.getTime();
  return isDeepStrictEqual(stored, desired);
}

/** jsonb parameters go as JSON text: the pg driver would send a JS array as a PostgreSQL array. */
export function asJsonColumns<T extends Record<string, unknown>>(values: T, columns: readonly string[]): T {
  const copy: Record<string, unknown> = { ...values };
  for (const column of columns) if (column in copy) copy[column] = JSON.stringify(copy[column]);
  return copy as T;
}

/** Whether a sealed secret holds `plaintext`; one sealed under another key counts as different. */
export function sealedEquals(masterKey: Buffer, sealed: string | null | undefined, plaintext: string): boolean {
  if (!sealed) return false;
  try {
    return constantTimeEqual(unseal(masterKey, sealed), plaintext);
  } catch {
    return false;
  }
}

/** Makes a link set equal to `desired`: removes the extra ids, adds the missing ones, leaves the rest. */
export async function syncIdSet<T extends number | string>(
  stored: readonly T[],
  desired: readonly T[],
  remove: (ids: T[]) => Promise<unknown>,
  add: (ids: T[]) => Promise<unknown>,
): Promise<void> {
  const extra = stored.filter((id) => !desired.includes(id));
  const missing = [...new Set(desired)].filter((id) => !stored.includes(id));
  if (extra.length > 0) await remove(extra);
  if (missing.length > 0) await add(missing);
}

/** Looks up a reference the document rules already checked; a miss here is a bug, not input. */
export function resolved<T>(ids: ReadonlyMap<string, T>, ref: string, what: string): T {
  const id = ids.get(ref);
  if (id === undefined) throw new MerchantApplyError(`unknown ${what} "${ref}"`);
  return id;
}
