import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** A company by its global id, with its owner and time zone. */
export function findScheduleCompany(db: Kysely<DB>, companyId: number) {
  return db
    .selectFrom('companies')
    .select(['id', 'account_id', 'time_zone'])
    .where('id', '=', companyId)
    .executeTakeFirst();
}

/** The company's open intervals on a weekday (0 = Sunday). */
export function listOpenIntervals(db: Kysely<DB>, accountId: string, companyId: number, weekday: number) {
  return db
    .selectFrom('company_schedules')
    .select(['starts_at', 'ends_at', 'slot_minutes'])
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('weekday', '=', weekday)
    .orderBy('starts_at')
    .execute();
}

/** Instants of the company's live bookings in [from, to). */
export async function listBookedInstants(
  db: Kysely<DB>,
  accountId: string,
  companyId: number,
  from: Date,
  to: Date,
): Promise<Date[]> {
  const rows = await db
    .selectFrom('appointment_bookings')
    .select('scheduled_at')
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('status', '=', 'booked')
    .where('scheduled_at', '>=', from)
    .where('scheduled_at', '<', to)
    .execute();
  return rows.map((row) => row.scheduled_at);
}

/**
 * Books a slot unless it is taken. The partial unique index appointment_bookings_slot_idx decides;
 * ON CONFLICT on it (instead of a raised violation) leaves the caller's transaction usable.
 */
export async function insertBookingUnlessTaken(
  trx: Kysely<DB> | Transaction<DB>,
  booking: { accountId: string; companyId: number; scheduledAt: Date; orderId: number | null },
): Promise<{ id: number } | undefined> {
  return trx
    .insertInto('appointment_bookings')
    .values({
      account_id: booking.accountId,
      company_id: booking.companyId,
      scheduled_at: booking.scheduledAt,
      order_id: booking.orderId,
      status: 'booked',
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'company_id', 'scheduled_at']).where('status', '=', 'booked').doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
}

/** Gives the order's booked slot back (its attempt failed, or the order was cancelled or refunded). */
export async function releaseBooking(db: Kysely<DB>, accountId: string, orderId: number): Promise<void> {
  await db
    .updateTable('appointment_bookings')
    .set({ status: 'cancelled' })
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .where('status', '=', 'booked')
    .returning('id')
    .execute();
}
