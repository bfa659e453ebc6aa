/** Bulk rows for the order-list benchmarks: customers and orders of one tenant, inserted by generate_series. */
import type { Database } from '../src/db/database.ts';
import type { Tenant } from '../test/support/app.ts';

const STATUSES = ['pending', 'waiting_payment', 'paid', 'cancelled', 'refunded', 'paid', 'paid'];

export async function insertCustomers(database: Database, tenant: Tenant, count: number): Promise<void> {
  await database.withSession((s) =>
    s.query(
      `INSERT INTO customers (account_id, company_id, email, name)
       SELECT $1, $2, 'buyer' || g || '@example.com', 'Buyer ' || g FROM generate_series(1, $3::int) g`,
      [tenant.accountId, tenant.companyId, count],
    ),
  );
}

/**
 * Orders numbered [from, to): spread over two years back from now, statuses cycling, paid ones with paid_at, and a
 * meta of a channel (4 values) and a campaign (1,000 values).
 */
export async function insertOrders(database: Database, tenant: Tenant, from: number, to: number): Promise<void> {
  const batch = 100_000;
  for (let start = from; start < to; start += batch) {
    const end = Math.min(start + batch, to);
    await database.withSession((s) =>
      s.query(
        `WITH firstc AS (SELECT min(id) AS id, count(*) AS n FROM customers WHERE account_id = $1)
         INSERT INTO orders (uid, account_id, company_id, customer_id, source, status, subtotal_cents, total_cents, paid_cents,
                             created_at, date, paid_at, meta)
         SELECT gen_random_uuid(), $1, $2, firstc.id + (g % firstc.n), 'checkout_page', ($5::text[])[1 + g % ${STATUSES.length}],
                1000 + g % 90000, 1000 + g % 90000, 0, ts, ts::date, CASE WHEN ($5::text[])[1 + g % ${STATUSES.length}] = 'paid' THEN ts END,
                jsonb_build_object('channel', (ARRAY['site', 'app', 'marketplace', 'store'])[1 + g % 4], 'campaign', 'c' || (g % 1000))
         FROM firstc, generate_series($3::int, $4::int - 1) g,
              LATERAL (SELECT now() - ((g::bigint * 7919) % (730 * 86400)) * interval '1 second' AS ts) t`,
        [tenant.accountId, tenant.companyId, start, end, STATUSES],
      ),
    );
  }
  // What autovacuum does in production after a bulk load: statistics and the visibility map that
  // lets counts be index-only scans.
  await database.withSession(async (s) => {
    await s.exec('VACUUM ANALYZE orders');
    await s.exec('VACUUM ANALYZE customers');
  });
}
