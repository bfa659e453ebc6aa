import type { Kysely } from 'kysely';
import { containsPattern } from '../../db/like.ts';
import type { DB } from '../../db/schema.ts';

export const CUSTOMERS_PAGE_SIZE = 25;

/** A customer searched by name, e-mail or document (digits typed with or without punctuation), newest first. */
export async function listCustomers(db: Kysely<DB>, accountId: string, options: { q?: string; page: number }) {
  let query = db.selectFrom('customers').where('account_id', '=', accountId);
  const q = options.q?.trim();
  if (q) {
    const digits = q.replace(/[.\-/\s]/g, '');
    query = query.where((eb) =>
      eb.or([
        eb('name', 'ilike', containsPattern(q)),
        eb('email', 'ilike', containsPattern(q)),
        ...(/^[0-9A-Za-z]+$/.test(digits) ? [eb('identification', 'ilike', containsPattern(digits))] : []),
      ]),
    );
  }
  const [rows, count] = await Promise.all([
    query
      .select(['id', 'name', 'email', 'identification', 'phone', 'created_at'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(CUSTOMERS_PAGE_SIZE)
      .offset((options.page - 1) * CUSTOMERS_PAGE_SIZE)
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const total = Number(count.n);
  return {
    meta: {
      current_page: options.page,
      total_pages: Math.ceil(total / CUSTOMERS_PAGE_SIZE),
      total_count: total,
      per_page: CUSTOMERS_PAGE_SIZE,
    },
    data: rows.map(customerView),
  };
}

function customerView(row: {
  id: number;
  name: string;
  email: string;
  identification: string | null;
  phone: string | null;
  created_at: Date;
}) {
  return { ...row, created_at: row.created_at.toISOString() };
}

const SUBSCRIPTION_COLUMNS = [
  'id',
  'status',
  'interval',
  'interval_count',
  'amount_cents',
  'origin_order_id',
  'current_period_start',
  'current_period_end',
  'next_charge_at',
  'failed_attempts',
  'renewal_method',
  'cancelled_at',
  'created_at',
] as const;

type SubscriptionRow = {
  status: string;
  current_period_start: Date;
  current_period_end: Date;
  next_charge_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
};

function subscriptionView<T extends SubscriptionRow>(row: T) {
  return {
    ...row,
    status: row.status as 'active' | 'past_due' | 'cancelled',
    current_period_start: row.current_period_start.toISOString(),
    current_period_end: row.current_period_end.toISOString(),
    next_charge_at: row.next_charge_at?.toISOString() ?? null,
    cancelled_at: row.cancelled_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

type OrderLine = { id: number; uid: string; status: string; total_cents: number; created_at: Date };
const orderLine = (row: OrderLine) => ({ ...row, created_at: row.created_at.toISOString() });

/** The customer with its latest orders and its subscriptions; undefined when it is not the account's. */
export async function customerPage(db: Kysely<DB>, accountId: string, customerId: number) {
  const customer = await db
    .selectFrom('customers')
    .select(['id', 'name', 'email', 'identification', 'phone', 'created_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', customerId)
    .executeTakeFirst();
  if (!customer) return undefined;
  const [orders, subscriptions] = await Promise.all([
    db
      .selectFrom('orders')
      .select(['id', 'uid', 'status', 'total_cents', 'created_at'])
      .where('account_id', '=', accountId)
      .where('customer_id', '=', customerId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(100)
      .execute(),
    db
      .selectFrom('subscriptions')
      .select(SUBSCRIPTION_COLUMNS)
      .where('account_id', '=', accountId)
      .where('customer_id', '=', customerId)
      .orderBy('created_at', 'desc')
      .execute(),
  ]);
  return {
    customer: customerView(customer),
    orders: orders.map(orderLine),
    subscriptions: subscriptions.map(subscriptionView),
  };
}

/**
 * A subscription with its customer and its renewal orders (the orders a renewal made from the origin order): the
 * paid ones are its past renewals, the cancelled ones its failed attempts.
 */
export async function subscriptionPage(db: Kysely<DB>, accountId: string, subscriptionId: string) {
  const subscription = await db
    .selectFrom('subscriptions as s')
    .innerJoin('customers as c', (join) =>
      join.onRef('c.id', '=', 's.customer_id').onRef('c.account_id', '=', 's.account_id'),
    )
    .select(SUBSCRIPTION_COLUMNS.map((column) => `s.${column}` as const))
    .select(['c.id as customer_id', 'c.name as customer_name', 'c.email as customer_email'])
    .where('s.account_id', '=', accountId)
    .where('s.id', '=', subscriptionId)
    .executeTakeFirst();
  if (!subscription) return undefined;
  const renewals = await db
    .selectFrom('orders')
    .select(['id', 'uid', 'status', 'total_cents', 'created_at'])
    .where('account_id', '=', accountId)
    .where('parent_order_id', '=', subscription.origin_order_id)
    .where('source', '=', 'subscription')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(200)
    .execute();
  const { customer_id, customer_name, customer_email, ...rest } = subscription;
  return {
    subscription: subscriptionView(rest),
    customer: { id: customer_id, name: customer_name, email: customer_email },
    renewals: renewals.map(orderLine),
  };
}
