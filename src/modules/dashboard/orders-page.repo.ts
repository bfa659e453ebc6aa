import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { loadOrderDetails, matchingOrders, type OrderListFilter } from '../orders/index.ts';

/**
 * How far the orders page counts. Past it the page says "1.000+": an exact total of a million orders costs a scan
 * of every match (or of the daily counters) on each page view, while a count that stops at the cap reads at most
 * this many matches, whatever the account's size (10,000 cost 20-40 ms for a filter matching a quarter of a
 * million orders; docs/benchmarks.md).
 */
export const ORDER_COUNT_CAP = 1_000;

export type DashboardOrdersMeta = {
  current_page: number;
  per_page: number;
  has_more: boolean;
  total_count: number;
  total_count_exact: boolean;
};

/**
 * One page of the account's orders for the dashboard, newest first: the page read one row further to know whether
 * another follows, and the matches counted up to ORDER_COUNT_CAP. `GET /api/v1/orders` keeps its exact total.
 */
export async function dashboardOrdersPage(
  db: Kysely<DB>,
  accountId: string,
  filter: OrderListFilter,
  page: { currentPage: number; perPage: number },
) {
  const { query: matching } = await matchingOrders(db, accountId, filter);
  const offset = (page.currentPage - 1) * page.perPage;
  const [rows, counted] = await Promise.all([
    matching
      .select('o.id')
      .orderBy('o.created_at', 'desc')
      .orderBy('o.id', 'desc')
      .limit(page.perPage + 1)
      .offset(offset)
      .execute(),
    db
      .selectFrom(
        matching
          .select(sql<number>`1`.as('one'))
          .limit(ORDER_COUNT_CAP + 1)
          .as('capped'),
      )
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  const count = Number(counted.n);
  const ids = rows.slice(0, page.perPage).map((row) => row.id);
  const meta: DashboardOrdersMeta = {
    current_page: page.currentPage,
    per_page: page.perPage,
    has_more: rows.length > page.perPage,
    total_count: Math.min(count, ORDER_COUNT_CAP),
    total_count_exact: count <= ORDER_COUNT_CAP,
  };
  return { details: await loadOrderDetails(db, accountId, ids), meta };
}
