import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { enqueueJob } from '../../../queue/outbox.ts';

export const VOID_ORPHAN_JOB = 'payments.void_orphan_capture';
/**
 * The pay request compensates a failed split itself at once; the job is the safety net for a capture
 * that became known later (a card reconciled as paid after the other card failed), so it waits a little.
 */
export const VOID_ORPHAN_DELAY_MS = 60_000;

/** Written by the settlement, in its transaction, for a card captured on an order that cannot be paid by it. */
export function enqueueOrphanVoid(trx: Kysely<DB>, accountId: string, paymentId: number, at: Date): Promise<boolean> {
  return enqueueJob(trx, {
    type: VOID_ORPHAN_JOB,
    payload: { account_id: accountId, payment_id: paymentId },
    accountId,
    runAt: new Date(at.getTime() + VOID_ORPHAN_DELAY_MS),
    dedupKey: `${VOID_ORPHAN_JOB}:${paymentId}`,
  });
}

export const VOID_SUPERSEDED_JOB = 'payments.void_superseded';

/** Written when an order became paid while another of its pix or boleto attempts was still payable. Runs at once. */
export function enqueueSupersededVoid(
  trx: Kysely<DB>,
  accountId: string,
  paymentId: number,
  at: Date,
): Promise<boolean> {
  return enqueueJob(trx, {
    type: VOID_SUPERSEDED_JOB,
    payload: { account_id: accountId, payment_id: paymentId },
    accountId,
    runAt: at,
    dedupKey: `${VOID_SUPERSEDED_JOB}:${paymentId}`,
  });
}
