/** Pix transaction ids (txid): the static and dynamic (cob) rules, and a deterministic generator. */

import { createHash } from 'node:crypto';

/** The txid a static BR Code carries when the receiver does not identify the payment. */
export const PIX_NO_TXID = '***';

const STATIC_TXID = /^[A-Za-z0-9]{1,25}$/;
const DYNAMIC_TXID = /^[A-Za-z0-9]{26,35}$/;
const GENERATED_TXID_LENGTH = 32;

/** Static BR Code txid: 1–25 letters and digits, or `***`. */
export function isValidStaticTxid(txid: string): boolean {
  return txid === PIX_NO_TXID || STATIC_TXID.test(txid);
}

/** Dynamic (cob) txid: 26–35 letters and digits. */
export function isValidDynamicTxid(txid: string): boolean {
  return DYNAMIC_TXID.test(txid);
}

/**
 * A valid dynamic txid derived from `seed` (e.g. a payment uid): the first 32 hex digits of its
 * SHA-256, so the same payment always gets the same txid and retries stay idempotent.
 */
export function pixTxid(seed: string): string {
  if (seed === '') throw new RangeError('pixTxid needs a non-empty seed');
  return createHash('sha256').update(seed, 'utf8').digest('hex').slice(0, GENERATED_TXID_LENGTH);
}
