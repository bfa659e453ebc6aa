import { SandboxError } from './router.ts';
import { refundedCents, sandboxId, type SandboxCharge, type SandboxRefund } from './store.ts';

/** What happened to a charge; each gateway turns it into its own webhook event. */
export type ChargeEvent =
  | { kind: 'paid' }
  | { kind: 'failed' }
  | { kind: 'expired' }
  | { kind: 'cancelled' }
  | { kind: 'refunded'; refund: SandboxRefund }
  | { kind: 'disputed' };

/** Pays a waiting pix or boleto (the sandbox's "the buyer paid" action). */
export function confirmPayment(charge: SandboxCharge, now: Date): ChargeEvent {
  if (charge.method === 'credit_card')
    throw new SandboxError(
      409,
      'invalid_state',
      'Card charges settle when they are created; only pix and boleto wait for payment',
    );
  if (charge.state !== 'waiting_payment')
    throw new SandboxError(409, 'invalid_state', `The charge is ${charge.state}, not waiting for payment`);
  charge.state = 'paid';
  charge.paidAt = now;
  charge.updatedAt = now;
  return { kind: 'paid' };
}

/** Lets a waiting pix or boleto lapse unpaid. */
export function expirePayment(charge: SandboxCharge, now: Date): ChargeEvent {
  if (charge.method === 'credit_card' || charge.state !== 'waiting_payment') {
    throw new SandboxError(409, 'invalid_state', 'Only a pix or boleto waiting for payment can expire');
  }
  charge.state = 'expired';
  charge.failure = {
    code: 'expired',
    message: charge.method === 'pix' ? 'The pix QR code expired unpaid' : 'The boleto passed its due date unpaid',
  };
  charge.updatedAt = now;
  return { kind: 'expired' };
}

/** Cancels a charge not yet paid, or refunds what is left of a paid one. */
export function cancelOrRefundAll(charge: SandboxCharge, now: Date, reference: string | null = null): ChargeEvent {
  if (charge.state === 'waiting_payment') {
    charge.state = 'cancelled';
    charge.cancelledAt = now;
    charge.updatedAt = now;
    return { kind: 'cancelled' };
  }
  if (charge.state !== 'paid')
    throw new SandboxError(409, 'invalid_state', `A ${charge.state} charge cannot be cancelled`);
  return refundPart(charge, charge.amountCents - refundedCents(charge), now, reference);
}

/** Refunds `amountCents` of a paid charge (several partial refunds may add up to the whole), under the merchant's reference. */
export function refundPart(
  charge: SandboxCharge,
  amountCents: number,
  now: Date,
  reference: string | null = null,
): ChargeEvent {
  if (charge.state !== 'paid')
    throw new SandboxError(409, 'invalid_state', `Only a paid charge can be refunded; this one is ${charge.state}`);
  const left = charge.amountCents - refundedCents(charge);
  if (left === 0) throw new SandboxError(409, 'already_refunded', 'The charge is already fully refunded');
  if (!Number.isSafeInteger(amountCents) || amountCents < 1)
    throw new SandboxError(400, 'invalid_amount', 'The refund amount must be a positive integer of cents', 'amount');
  if (amountCents > left)
    throw new SandboxError(
      400,
      'amount_too_large',
      `The refund amount is more than the ${left} cents left to refund`,
      'amount',
    );
  const refund = { id: sandboxId('re_'), amountCents, createdAt: now, reference };
  charge.refunds.push(refund);
  charge.updatedAt = now;
  return { kind: 'refunded', refund };
}

/** Opens a chargeback on a paid charge. */
export function disputePayment(charge: SandboxCharge, now: Date): ChargeEvent {
  if (charge.state !== 'paid' || charge.dispute)
    throw new SandboxError(409, 'invalid_state', 'Only a paid charge without a dispute can be disputed');
  charge.dispute = { id: sandboxId('dp_'), amountCents: charge.amountCents - refundedCents(charge), createdAt: now };
  charge.updatedAt = now;
  return { kind: 'disputed' };
}
