import { Readable } from 'node:stream';
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { matchingOrders, type OrderListFilter } from '../orders/index.ts';

const PAGE = 500;
const HEADER = [
  'id',
  'uid',
  'status',
  'created_at',
  'paid_at',
  'customer_name',
  'customer_email',
  'total',
  'paid',
  'refunded',
  'methods',
];

/** A CSV cell: quoted when needed, and a leading = + - @ defused so a spreadsheet never runs it as a formula. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const major = (cents: number) => (cents / 100).toFixed(2);

/**
 * The filtered orders as CSV, newest first, read PAGE rows at a time and written as the client takes them (the
 * stream pulls the next page only when the socket drained), so memory stays flat whatever the count. Pages follow
 * the last row's (created_at, id), not an OFFSET, so the 200th page costs what the first does.
 */
export function ordersCsv(db: Kysely<DB>, accountId: string, filter: OrderListFilter, pageSize = PAGE): Readable {
  async function* lines() {
    yield `${HEADER.join(',')}\r\n`;
    const { query: matching } = await matchingOrders(db, accountId, filter);
    let afterId: number | undefined;
    for (;;) {
      const rows = await matching
        .leftJoin('customers as c', (join) =>
          join.onRef('c.id', '=', 'o.customer_id').onRef('c.account_id', '=', 'o.account_id'),
        )
        .select([
          'o.id',
          'o.uid',
          'o.status',
          'o.created_at',
          'o.paid_at',
          'o.total_cents',
          'o.paid_cents',
          'o.refunded_cents',
          'c.name',
          'c.email',
          (eb) =>
            eb
              .selectFrom('payments as p')
              .select((inner) => inner.fn.agg<string>('string_agg', [inner.ref('p.method'), inner.val(' ')]).as('m'))
              .whereRef('p.order_id', '=', 'o.id')
              .where('p.account_id', '=', accountId)
              .as('methods'),
        ])
        // The cursor reads the last row's created_at in the database: a JavaScript Date would drop its microseconds.
        .$if(afterId !== undefined, (query) =>
          query.where(
            sql<SqlBool>`(o.created_at, o.id) < ((select created_at from orders where id = ${afterId} and account_id = ${accountId}), ${afterId})`,
          ),
        )
        .orderBy('o.created_at', 'desc')
        .orderBy('o.id', 'desc')
        .limit(pageSize)
        .execute();
      if (rows.length === 0) return;
      yield rows
        .map((row) =>
          [
            row.id,
            row.uid,
            row.status,
            row.created_at.toISOString(),
            row.paid_at?.toISOString(),
            row.name,
            row.email,
            major(row.total_cents),
            major(row.paid_cents),
            major(row.refunded_cents),
            row.methods,
          ]
            .map(csvCell)
            .join(','),
        )
        .join('\r\n')
        .concat('\r\n');
      if (rows.length < pageSize) return;
      afterId = rows[rows.length - 1]!.id;
    }
  }
  return Readable.from(lines(), { objectMode: false, highWaterMark: 1 });
}
