import { sql, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import type { Customers, DB } from '../../db/schema.ts';

/** Customer columns a request may write; undefined means "leave as stored" on an update. */
export type CustomerColumns = {
  email: string;
  name?: string;
  phone?: string;
  identification?: string;
  foreign?: boolean;
  street?: string;
  neighborhood?: string;
  number?: string;
  complement?: string;
  zipcode?: string;
  city?: string;
  state?: string;
  social_reason?: string;
  state_inscription?: string;
  municipal_inscription?: string;
  tags?: string;
  list_ids?: string;
  carrier?: string;
  url?: string;
  minimum_retention_cents?: number;
  auxiliary_emails?: string[];
  meta?: Record<string, string>;
};

export type CustomerRow = Selectable<Customers>;
type UpdatableColumn = Exclude<keyof CustomerColumns, 'email' | 'meta'>;

/**
 * Creates the company's customer with this email, or updates the one that exists, in one statement
 * (`INSERT … ON CONFLICT … DO UPDATE`), so concurrent upserts of one email converge on one row.
 * Only the columns given are updated; `meta` keys are merged into the stored ones.
 * A new customer without a name is named after its email.
 */
export async function upsertCustomer(
  db: Kysely<DB>,
  scope: { accountId: string; companyId: number },
  columns: CustomerColumns,
  now: Date,
): Promise<CustomerRow> {
  return upsertCustomerQuery(db, scope, columns, now).executeTakeFirstOrThrow();
}

/** The upsert as a query, for a statement that goes on to use the customer (a pay intent's CTE). */
export function upsertCustomerQuery(
  db: QueryCreator<DB>,
  scope: { accountId: string; companyId: number },
  columns: CustomerColumns,
  now: Date,
) {
  const given = (Object.keys(columns) as Array<keyof CustomerColumns>).filter(
    (key): key is UpdatableColumn => key !== 'email' && key !== 'meta' && columns[key] !== undefined,
  );
  const values = Object.fromEntries(given.map((key) => [key, columns[key]]));
  return db
    .insertInto('customers')
    .values({
      ...values,
      account_id: scope.accountId,
      company_id: scope.companyId,
      email: columns.email,
      name: columns.name ?? columns.email,
      meta: JSON.stringify(columns.meta ?? {}),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'company_id', 'email']).doUpdateSet((eb) => ({
        ...Object.fromEntries(given.map((key) => [key, eb.ref(`excluded.${key}`)])),
        meta: sql`customers.meta || excluded.meta`,
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returningAll();
}
