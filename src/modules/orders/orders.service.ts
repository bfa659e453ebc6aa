import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DB } from '../../db/schema.ts';
import { notFound, validationFailed } from '../../http/errors.ts';
import { loadOrderDetails, type OrderDetails } from './order-details.repo.ts';
import { findOrderPage, type OrderListFilter } from './orders-list.repo.ts';
import { DEFAULT_PAGE_SIZE, type OrderListQuery } from './orders.schemas.ts';

type ListQuery = Static<typeof OrderListQuery>;

export type OrderPage = {
  details: OrderDetails[];
  meta: { current_page: number; total_pages: number; total_count: number; per_page: number };
};

/**
 * `meta[]=key:value` into the objects the order's meta must contain. The value is matched as a
 * string, and also as the number or boolean it spells (`count:3` matches `{"count": 3}` and `{"count": "3"}`).
 */
export function metaMatches(pairs: readonly string[]): Array<Array<Record<string, unknown>>> {
  return pairs.map((pair) => {
    const colon = pair.indexOf(':');
    const key = pair.slice(0, colon);
    const value = pair.slice(colon + 1);
    const alternatives: Array<Record<string, unknown>> = [{ [key]: value }];
    if (value === 'true' || value === 'false') alternatives.push({ [key]: value === 'true' });
    else if (/^-?(0|[1-9][0-9]{0,14})(\.[0-9]+)?$/.test(value)) alternatives.push({ [key]: Number(value) });
    return alternatives;
  });
}

export function listFilter(query: ListQuery): OrderListFilter {
  if (query.initial_date && query.final_date && query.final_date < query.initial_date) {
    throw validationFailed('final_date is before initial_date', [
      { field: 'querystring/final_date', message: 'must not be before initial_date' },
    ]);
  }
  return {
    period: { field: query.period_date_filter ?? 'created_at', from: query.initial_date, to: query.final_date },
    q: query.q?.trim() || undefined,
    cartPageIds: query.cart_page_uuids?.map((id) => id.toLowerCase()),
    companyIds: query.company_ids,
    statuses: query.status,
    metaMatches: query.meta ? metaMatches(query.meta) : undefined,
  };
}

/** One page of the account's orders, newest first, with the pagination figures of OrdersIndex. */
export async function listOrders(db: Kysely<DB>, accountId: string, query: ListQuery): Promise<OrderPage> {
  const perPage = query.limit ?? DEFAULT_PAGE_SIZE;
  const currentPage = query.page ?? 1;
  const { ids, totalCount } = await findOrderPage(db, accountId, listFilter(query), {
    limit: perPage,
    offset: (currentPage - 1) * perPage,
  });
  return {
    details: await loadOrderDetails(db, accountId, ids),
    meta: {
      current_page: currentPage,
      total_pages: Math.ceil(totalCount / perPage),
      total_count: totalCount,
      per_page: perPage,
    },
  };
}

/** One of the account's orders; another account's id is not found. */
export async function findOrderDetails(db: Kysely<DB>, accountId: string, id: number): Promise<OrderDetails> {
  const [details] = await loadOrderDetails(db, accountId, [id]);
  if (!details) throw notFound('Order');
  return details;
}
