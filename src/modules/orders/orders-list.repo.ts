import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { containsPattern } from '../../db/like.ts';
import type { OrderStatus } from './order-status.ts';
import type { PeriodField } from './orders.schemas.ts';

export type OrderListFilter = {
  period?: { field: PeriodField; from?: string; to?: string };
  q?: string;
  cartPageIds?: string[];
  companyIds?: number[];
  statuses?: OrderStatus[];
  /** Each object must be contained in the order's meta (`@>`, served by the GIN index orders_meta_idx). */
  metaMatches?: Array<Array<Record<string, unknown>>>;
};

type OrdersEb = ExpressionBuilder<DB & { o: DB['orders'] }, 'o'>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP_FIELDS: ReadonlySet<PeriodField> = new Set(['created_at', 'paid_at', 'scheduled_at']);

/** The time zones of the account's companies (those in `companyIds` when given), with their company ids. */
async function companyTimeZones(db: Kysely<DB>, accountId: string, companyIds?: number[]) {
  let query = db.selectFrom('companies').select(['id', 'time_zone']).where('account_id', '=', accountId);
  if (companyIds?.length) query = query.where('id', 'in', companyIds);
  const groups = new Map<string, number[]>();
  for (const row of await query.execute()) groups.set(row.time_zone, [...(groups.get(row.time_zone) ?? []), row.id]);
  return groups;
}

/**
 * The inclusive date range on a timestamp field, with each day taken in the company's time zone.
 * The bounds are constants per zone, so an index on (account_id, field) serves the range; companies in
 * different zones get one bounded branch each.
 */
function timestampRange(
  eb: OrdersEb,
  field: PeriodField,
  zones: Map<string, number[]>,
  from?: string,
  to?: string,
): Expression<SqlBool> {
  const column = `o.${field}` as `o.${'created_at' | 'paid_at' | 'scheduled_at'}`;
  const bounded = (zone: string) =>
    eb.and([
      ...(from ? [eb(column, '>=', sql<Date>`(${from}::date)::timestamp AT TIME ZONE ${zone}`)] : []),
      ...(to ? [eb(column, '<', sql<Date>`((${to}::date + 1)::timestamp AT TIME ZONE ${zone})`)] : []),
    ]);
  if (zones.size <= 1) return zones.size === 0 ? sql<SqlBool>`false` : bounded([...zones.keys()][0]!);
  return eb.or([...zones].map(([zone, ids]) => eb.and([eb('o.company_id', 'in', ids), bounded(zone)])));
}

function searchCondition(eb: OrdersEb, accountId: string, q: string): Expression<SqlBool> {
  const pattern = containsPattern(q);
  const matchingCustomers = eb
    .selectFrom('customers')
    .select('customers.id')
    .where('customers.account_id', '=', accountId)
    .where((inner) =>
      inner.or([inner('customers.name', 'ilike', pattern), inner('customers.email', 'ilike', pattern)]),
    );
  // ANY(ARRAY(…)) evaluates the customer search once, so an OR with the id can use both indexes (BitmapOr).
  const conditions: Expression<SqlBool>[] = [eb('o.customer_id', '=', sql<number>`any(array(${matchingCustomers}))`)];
  if (/^[0-9]{1,15}$/.test(q) && Number.isSafeInteger(Number(q))) conditions.push(eb('o.id', '=', Number(q)));
  if (UUID.test(q)) conditions.push(eb('o.uid', '=', q.toLowerCase()));
  return eb.or(conditions);
}

/**
 * The account's orders matching the filter, as a query on `orders as o` to select from (wrapped: a query
 * builder cannot be the value of a promise).
 */
export async function matchingOrders(db: Kysely<DB>, accountId: string, filter: OrderListFilter) {
  const period = filter.period?.from || filter.period?.to ? filter.period : undefined;
  const zones =
    period && TIMESTAMP_FIELDS.has(period.field)
      ? await companyTimeZones(db, accountId, filter.companyIds)
      : new Map<string, number[]>();
  const query = db
    .selectFrom('orders as o')
    .where('o.account_id', '=', accountId)
    .where((eb) => {
      const conditions: Expression<SqlBool>[] = [];
      if (period) {
        if (TIMESTAMP_FIELDS.has(period.field))
          conditions.push(timestampRange(eb, period.field, zones, period.from, period.to));
        else {
          const column = `o.${period.field}` as 'o.date' | 'o.due_date';
          if (period.from) conditions.push(eb(column, '>=', period.from));
          if (period.to) conditions.push(eb(column, '<=', period.to));
        }
      }
      if (filter.q) conditions.push(searchCondition(eb, accountId, filter.q));
      if (filter.cartPageIds?.length) conditions.push(eb('o.cart_page_id', 'in', filter.cartPageIds));
      if (filter.companyIds?.length) conditions.push(eb('o.company_id', 'in', filter.companyIds));
      if (filter.statuses?.length) conditions.push(eb('o.status', 'in', filter.statuses));
      for (const alternatives of filter.metaMatches ?? []) {
        conditions.push(
          eb.or(alternatives.map((object) => eb('o.meta', '@>', sql<unknown>`${JSON.stringify(object)}::jsonb`))),
        );
      }
      return eb.and(conditions);
    });
  return { query };
}

/** The account's orders matching the filter: one page of ids (newest first) and the total count. */
export async function findOrderPage(
  db: Kysely<DB>,
  accountId: string,
  filter: OrderListFilter,
  page: { limit: number; offset: number },
) {
  const period = filter.period?.from || filter.period?.to ? filter.period : undefined;
  const { query: matching } = await matchingOrders(db, accountId, filter);
  const countable =
    !filter.q &&
    !filter.cartPageIds?.length &&
    !filter.metaMatches?.length &&
    (!period || period.field === 'created_at');
  const [ids, totalCount] = await Promise.all([
    matching
      .select('o.id')
      .orderBy('o.created_at', 'desc')
      .orderBy('o.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    countable
      ? countFromDailyCounts(db, accountId, filter, period)
      : matching
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
          .then((row) => Number(row.n)),
  ]);
  return { ids: ids.map((row) => row.id), totalCount };
}

/**
 * The count of a status / company / created-date filter from `order_counts` (kept by triggers, by day in
 * each company's time zone, the same days the list filter uses): its cost follows the days asked for.
 */
async function countFromDailyCounts(
  db: Kysely<DB>,
  accountId: string,
  filter: OrderListFilter,
  period: OrderListFilter['period'],
): Promise<number> {
  let query = db
    .selectFrom('order_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), sql<number>`0`).as('n'))
    .where('account_id', '=', accountId);
  if (filter.statuses?.length) query = query.where('status', 'in', filter.statuses);
  if (filter.companyIds?.length) query = query.where('company_id', 'in', filter.companyIds);
  if (period?.from) query = query.where('day', '>=', period.from);
  if (period?.to) query = query.where('day', '<=', period.to);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}
