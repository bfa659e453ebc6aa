import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DB } from '../../../db/schema.ts';
import { sumOf, toMajor } from '../../../lib/money.ts';
import {
  findLastActiveAttempt,
  listPaymentStatuses,
  listRecentPaymentStatuses,
  type PaymentOrigin,
  type PaymentRefs,
} from './payment-reads.repo.ts';
import { RECENT_PAYMENTS_LIMIT, type LastPaymentSchema, type PaymentStatusSchema } from './payment-reads.schemas.ts';

type ListedStatus = Static<typeof PaymentStatusSchema>['status'];
type LastStatus = Static<typeof LastPaymentSchema>['status'];

/**
 * Internal payment statuses onto the values clients know. A partial refund leaves the payment standing
 * (paid); a full refund, a chargeback or a requested cancellation undo it (cancelled).
 */
const LISTED_STATUS: Record<string, ListedStatus> = {
  pending: 'waiting_payment',
  waiting_payment: 'waiting_payment',
  paid: 'paid',
  partially_refunded: 'paid',
  failed: 'failed',
  cancelled: 'cancelled',
  waiting_cancellation: 'cancelled',
  refunded: 'cancelled',
  charged_back: 'cancelled',
};

/** LastPayment also knows `pending` (recorded, the gateway has not answered yet). */
const LAST_STATUS: Record<string, LastStatus> = { ...LISTED_STATUS, pending: 'pending' };

function mapped<T>(table: Record<string, T>, status: string): T {
  const value = table[status];
  if (value === undefined) throw new Error(`payment status ${status} has no public mapping`);
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTERNAL_ID = /^[1-9][0-9]{0,15}$/;

/** Each requested id may be a gateway id, an internal integer id or an internal uid; blank ones are ignored. */
export function paymentRefs(ids: readonly string[]): PaymentRefs {
  const wanted = [...new Set(ids.map((id) => id.trim()).filter((id) => id !== ''))];
  return {
    gatewayIds: wanted,
    ids: wanted.filter((id) => INTERNAL_ID.test(id) && Number.isSafeInteger(Number(id))).map(Number),
    uids: wanted.filter((id) => UUID.test(id)).map((id) => id.toLowerCase()),
  };
}

/** A payment the gateway has not numbered yet is named by its uid. */
const publicGatewayId = (row: { gateway_id: string | null; uid: string }) => row.gateway_id ?? row.uid;

/**
 * PaymentStatus items of the origin's payments: without `ids`, its RECENT_PAYMENTS_LIMIT most recent ones,
 * newest first; with `ids`, those it names, oldest first (empty when it names none, e.g. only blanks).
 */
export async function paymentStatuses(
  db: Kysely<DB>,
  accountId: string,
  origin: PaymentOrigin,
  ids: readonly string[] | undefined,
): Promise<Static<typeof PaymentStatusSchema>[]> {
  const refs = ids === undefined ? undefined : paymentRefs(ids);
  if (refs?.gatewayIds.length === 0) return [];
  const rows = refs
    ? await listPaymentStatuses(db, accountId, origin, refs)
    : await listRecentPaymentStatuses(db, accountId, origin, RECENT_PAYMENTS_LIMIT);
  return rows.map((row) => ({ gateway_id: publicGatewayId(row), status: mapped(LISTED_STATUS, row.status) }));
}

/** LastPayment of a charge, or undefined when it has no active or failed attempt. */
export async function lastChargePayment(
  db: Kysely<DB>,
  accountId: string,
  orderId: number,
): Promise<Static<typeof LastPaymentSchema> | undefined> {
  const cards = await findLastActiveAttempt(db, accountId, orderId);
  const first = cards[0];
  if (!first) return undefined;
  const statuses = cards.map((card) => mapped(LAST_STATUS, card.status));
  const status = ATTEMPT_STATUS_PRECEDENCE.find((candidate) => statuses.includes(candidate)) ?? 'paid';
  const paidAt = status === 'paid' ? Math.max(...cards.map((card) => card.paid_at?.getTime() ?? 0)) : 0;
  return {
    // A two-card split is one attempt: its amount and interest are both cards', named by the first card.
    gateway_id: publicGatewayId(first),
    amount: toMajor(sumOf(cards, (card) => card.amount_cents)),
    // Late interest only: the fine and card interest or fees are in the amount but are not late interest.
    interest: toMajor(sumOf(cards, (card) => card.late_interest_cents)),
    paid_at: paidAt > 0 ? new Date(paidAt).toISOString() : null,
    status,
  };
}

/** A split's status is its least advanced card's: failed if either failed, paid only when both are. */
const ATTEMPT_STATUS_PRECEDENCE: readonly LastStatus[] = ['failed', 'pending', 'waiting_payment', 'cancelled', 'paid'];
