import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { appendOrderEvent, transitionOrder } from '../../orders/index.ts';
import type { PayContext } from './pay-context.ts';
import type { ResolvedGateway } from '../attempts/pay-gateways.ts';
import type { IntentPayment } from './pay-intent.ts';
import { settleOrder } from '../settlement/order-settlement.ts';
import { findPaymentsOfOrder } from '../payments.repo.ts';
import type { RecordedPayment } from '../attempts/payment-record.ts';
import { transitionPayment } from '../settlement/payment-status.ts';
import { releasePaidOrder } from '../settlement/paid-order-release.ts';
import { signOfferToken } from '../settlement/upsell-offer-token.ts';

/**
 * A split whose other card failed: no money may stay captured on an unpaid order. Cards never submitted
 * are cancelled; each approved card is voided at the gateway (`voidCharge`: cancel or full refund) and
 * recorded refunded. A void the gateway refuses is logged on the order for an operator.
 */
export async function compensateSplit(
  db: Kysely<DB>,
  _deps: unknown,
  gateway: ResolvedGateway,
  recordedOf: (payment: IntentPayment) => RecordedPayment,
  payments: IntentPayment[],
  answeredCount: number,
  at: Date,
): Promise<void> {
  const rows = new Map(
    (await findPaymentsOfOrder(db, recordedOf(payments[0]!).accountId, recordedOf(payments[0]!).orderId)).map((row) => [
      row.id,
      row,
    ]),
  );
  for (const [position, payment] of payments.entries()) {
    const recorded = recordedOf(payment);
    const row = rows.get(payment.id)!;
    const base = { accountId: recorded.accountId, paymentId: payment.id, at };
    if (position >= answeredCount) {
      await db.transaction().execute(async (trx) => {
        await transitionPayment(trx, {
          ...base,
          to: 'cancelled',
          cause: 'split: the other card failed, this one was not charged',
        });
        await settleOrder(trx, {
          accountId: recorded.accountId,
          orderId: recorded.orderId,
          cause: 'split compensation',
          paymentId: payment.id,
          at,
        });
      });
      continue;
    }
    if (row.status !== 'paid' || !row.gateway_id) continue;
    try {
      await gateway.client.voidCharge(gateway.account, row.gateway_id, `void:${payment.uid}`);
    } catch (error) {
      await appendOrderEvent(db, {
        accountId: recorded.accountId,
        orderId: recorded.orderId,
        paymentId: payment.id,
        type: 'payment.void_failed',
        cause: 'split compensation could not void the approved card',
        data: { error: (error as Error).message.slice(0, 300) },
        at,
      });
      continue;
    }
    await recordVoided(
      db,
      {
        accountId: recorded.accountId,
        paymentId: payment.id,
        orderId: recorded.orderId,
        amountCents: row.amount_cents,
      },
      'split compensation: the other card failed, this charge was voided',
      at,
    );
  }
}

/** A captured payment the gateway voided (cancelled or fully refunded) is recorded refunded, and its order settled. */
export async function recordVoided(
  db: Kysely<DB>,
  payment: { accountId: string; paymentId: number; orderId: number; amountCents: number },
  cause: string,
  at: Date,
  options: { cancelOrder?: boolean } = {},
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await transitionPayment(trx, {
      accountId: payment.accountId,
      paymentId: payment.paymentId,
      at,
      to: 'refunded',
      cause,
      set: { refunded_cents: payment.amountCents },
    });
    await settleOrder(trx, {
      accountId: payment.accountId,
      orderId: payment.orderId,
      cause,
      paymentId: payment.paymentId,
      at,
    });
    // An order whose purchase another order made has nothing left to pay for.
    if (options.cancelOrder)
      await transitionOrder(trx, {
        accountId: payment.accountId,
        orderId: payment.orderId,
        to: 'cancelled',
        cause,
        paymentId: payment.paymentId,
        at,
      });
  });
}

/** After an order is paid in the pay request: its subscription (saved card, renewal job) and, on a page with an upsell, the offer's token. */
export async function finishPaidOrder(
  db: Kysely<DB>,
  masterKey: Buffer,
  input: {
    context: PayContext;
    orderId: number;
    customerId: number;
    lines: Array<{
      subscription: boolean;
      interval: string | null;
      intervalCount?: number | null;
      cycle?: number | null;
    }>;
    planId: number;
    now: Date;
  },
): Promise<{ offer?: string }> {
  const { context } = input;
  return db.transaction().execute(async (trx) => {
    const released = await releasePaidOrder(trx, {
      accountId: context.accountId,
      companyId: context.companyId,
      orderId: input.orderId,
      customerId: input.customerId,
      lines: input.lines,
      planId: input.planId,
      upsellProductId: context.upsellProductId,
      now: input.now,
    });
    return released.offer ? { offer: signOfferToken(masterKey, released.offer.id, released.offer.expiresAt) } : {};
  });
}
