import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * The home page's figures for the calendar days `from`..`to` (inclusive) in the time zone `zone`:
 * - revenue and paid orders: orders whose `paid_at` falls in the range (what `GET /orders?period_date_filter=paid_at`
 *   lists for the same dates), revenue being the sum of their totals;
 * - card approval rate: card payments created in the range that were captured, over those captured or declined;
 * - Pix and boleto: payments created in the range, and how many of them were paid;
 * - refunds: succeeded refunds made in the range; chargebacks: card payments charged back, by creation in the range.
 */
export type SalesSummary = {
  revenue_cents: number;
  paid_orders: number;
  card_approved: number;
  card_declined: number;
  pix_generated: number;
  pix_paid: number;
  boleto_generated: number;
  boleto_paid: number;
  refunds: number;
  refunded_cents: number;
  chargebacks: number;
  daily: Array<{ day: string; revenue_cents: number; paid_orders: number }>;
};

const CAPTURED = ['paid', 'partially_refunded', 'refunded', 'charged_back'];

export async function salesSummary(
  db: Kysely<DB>,
  accountId: string,
  range: { from: string; to: string; zone: string },
): Promise<SalesSummary> {
  const start = sql<Date>`(${range.from}::date)::timestamp AT TIME ZONE ${range.zone}`;
  const end = sql<Date>`((${range.to}::date + 1)::timestamp AT TIME ZONE ${range.zone})`;
  const localDay = sql<string>`to_char(o.paid_at AT TIME ZONE ${range.zone}, 'YYYY-MM-DD')`;
  const [daily, payments, refunds] = await Promise.all([
    db
      .selectFrom('orders as o')
      .select([
        localDay.as('day'),
        (eb) => eb.fn.coalesce(eb.fn.sum<number>('o.total_cents'), sql<number>`0`).as('revenue_cents'),
        (eb) => eb.fn.countAll<number>().as('paid_orders'),
      ])
      .where('o.account_id', '=', accountId)
      .where('o.paid_at', '>=', start)
      .where('o.paid_at', '<', end)
      // By position: the zone is a parameter, and each mention of it is another one PostgreSQL cannot match.
      .groupBy(sql`1`)
      .orderBy(sql`1`)
      .execute(),
    db
      .selectFrom('payments as p')
      .select([
        'p.method',
        (eb) => eb.fn.countAll<number>().as('created'),
        sql<number>`count(*) FILTER (WHERE p.status IN (${sql.join(CAPTURED)}))`.as('captured'),
        sql<number>`count(*) FILTER (WHERE p.status = 'failed')`.as('failed'),
        sql<number>`count(*) FILTER (WHERE p.paid_at IS NOT NULL)`.as('paid'),
        sql<number>`count(*) FILTER (WHERE p.status = 'charged_back')`.as('charged_back'),
      ])
      .where('p.account_id', '=', accountId)
      .where('p.created_at', '>=', start)
      .where('p.created_at', '<', end)
      .groupBy('p.method')
      .execute(),
    db
      .selectFrom('refunds as r')
      .select([
        (eb) => eb.fn.countAll<number>().as('refunds'),
        (eb) => eb.fn.coalesce(eb.fn.sum<number>('r.amount_cents'), sql<number>`0`).as('refunded_cents'),
      ])
      .where('r.account_id', '=', accountId)
      .where('r.status', '=', 'succeeded')
      .where('r.refunded_at', '>=', start)
      .where('r.refunded_at', '<', end)
      .executeTakeFirstOrThrow(),
  ]);
  const method = (name: string) => payments.find((row) => row.method === name);
  const figure = (value: unknown) => Number(value ?? 0);
  return {
    revenue_cents: daily.reduce((sum, row) => sum + figure(row.revenue_cents), 0),
    paid_orders: daily.reduce((sum, row) => sum + figure(row.paid_orders), 0),
    card_approved: figure(method('credit_card')?.captured),
    card_declined: figure(method('credit_card')?.failed),
    pix_generated: figure(method('pix')?.created),
    pix_paid: figure(method('pix')?.paid),
    boleto_generated: figure(method('bank_slip')?.created),
    boleto_paid: figure(method('bank_slip')?.paid),
    refunds: figure(refunds.refunds),
    refunded_cents: figure(refunds.refunded_cents),
    chargebacks: figure(method('credit_card')?.charged_back),
    daily: daily.map((row) => ({
      day: row.day,
      revenue_cents: figure(row.revenue_cents),
      paid_orders: figure(row.paid_orders),
    })),
  };
}

/** The account's primary company's time zone: the one the dashboard reads days in. */
export async function accountTimeZone(db: Kysely<DB>, accountId: string): Promise<string> {
  const row = await db
    .selectFrom('companies')
    .select('time_zone')
    .where('account_id', '=', accountId)
    .orderBy('is_primary', 'desc')
    .orderBy('id')
    .executeTakeFirst();
  return row?.time_zone ?? 'America/Sao_Paulo';
}
