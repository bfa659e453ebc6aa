import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { appendOrderEvent } from '../orders/order-events.repo.ts';
import type { PayContext } from './pay-context.ts';
import type { ResolvedGateway } from './pay-gateways.ts';
import type { IntentPayment } from './pay-intent.ts';
import { settleOrder } from './order-settlement.ts';
import { findPaymentsOfOrder } from './pay.repo.ts';
import type { RecordedPayment } from './payment-record.ts';
import { transitionPayment } from './payment-status.ts';
import { startSubscription, type Interval } from './subscriptions.ts';
import { createUpsellOffer } from './upsell-offer-token.ts';

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
  const rows = new Map((await findPaymentsOfOrder(db, recordedOf(payments[0]!).accountId, recordedOf(payments[0]!).orderId)).map((row) => [row.id, row]));
  for (const [position, payment] of payments.entries()) {
    const recorded = recordedOf(payment);
    const row = rows.get(payment.id)!;
    const base = { accountId: recorded.accountId, paymentId: payment.id, at };
    if (position >= answeredCount) {
      await db.transaction().execute(async (trx) => {
        await transitionPayment(trx, { ...base, to: 'cancelled', cause: 'split: the other card failed, this one was not charged' });
        await settleOrder(trx, { accountId: recorded.accountId, orderId: recorded.orderId, cause: 'split compensation', paymentId: payment.id, at });
      });
      continue;
    }
    if (row.status !== 'paid' || !row.gateway_id) continue;
    try {
      await gateway.client.voidCharge(gateway.account, row.gateway_id, `void:${payment.uid}`);
    } catch (error) {
      await appendOrderEvent(db, { accountId: recorded.accountId, orderId: recorded.orderId, paymentId: payment.id, type: 'payment.void_failed', cause: 'split compensation could not void the approved card', data: { error: (error as Error).message.slice(0, 300) }, at });
      continue;
    }
    await db.transaction().execute(async (trx) => {
      await transitionPayment(trx, { ...base, to: 'refunded', cause: 'split compensation: the other card failed, this charge was voided', set: { refunded_cents: row.amount_cents } });
      await settleOrder(trx, { accountId: recorded.accountId, orderId: recorded.orderId, cause: 'split compensation', paymentId: payment.id, at });
    });
  }
}

/** After an order is paid: its subscription (saved card, renewal job) and, on a page with an upsell, the offer. */
export async function finishPaidOrder(
  db: Kysely<DB>,
  masterKey: Buffer,
  input: { context: PayContext; orderId: number; customerId: number; lines: Array<{ subscription: boolean; interval: string | null; intervalCount?: number | null; cycle?: number | null }>; planId: number; now: Date },
): Promise<{ offer?: string }> {
  const { context } = input;
  return db.transaction().execute(async (trx) => {
    const subscribed = input.lines.find((line) => line.subscription && line.interval);
    if (subscribed) {
      const exists = await trx.selectFrom('subscriptions').select('id').where('account_id', '=', context.accountId).where('origin_order_id', '=', input.orderId).executeTakeFirst();
      if (!exists) {
        const payments = await findPaymentsOfOrder(trx, context.accountId, input.orderId);
        const paid = payments.filter((payment) => payment.status === 'paid');
        await startSubscription(trx, {
          accountId: context.accountId,
          companyId: context.companyId,
          customerId: input.customerId,
          orderId: input.orderId,
          savedMethodId: paid.find((payment) => payment.saved_payment_method_id)?.saved_payment_method_id ?? null,
          planId: input.planId,
          amountCents: paid.reduce((sum, payment) => sum + payment.amount_cents, 0),
          interval: subscribed.interval as Interval,
          intervalCount: subscribed.intervalCount ?? subscribed.cycle ?? 1,
          now: input.now,
        });
      }
    }
    if (context.upsellProductId === null) return {};
    return { offer: await createUpsellOffer(trx, masterKey, { accountId: context.accountId, orderId: input.orderId, productId: context.upsellProductId, now: input.now }) };
  });
}
