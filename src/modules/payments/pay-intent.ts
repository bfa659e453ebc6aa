import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { businessRule } from '../../http/errors.ts';
import { unseal } from '../../lib/crypto.ts';
import { consumeCardHashKey } from '../card-hash/card-hash.service.ts';
import type { CustomerRow } from '../customers/customers.repo.ts';
import { appendOrderEvent } from '../orders/order-events.repo.ts';
import type { PaymentPlanQuote } from '../payment-plans/payment-plans.service.ts';
import { bookSlot } from '../scheduling/scheduling.service.ts';
import { claimCouponForOrder } from '../coupons/coupon-usage.ts';
import type { PlannedCard } from './pay-cards.ts';
import type { PayContext } from './pay-context.ts';
import { resolvePayCustomer } from './pay-customer.ts';
import { createPayOrder } from './pay-order.ts';
import { findCustomerById, findSavedMethod, insertPaymentRow } from './pay.repo.ts';
import { enqueueIntentRecovery } from './payment-record.ts';

export type IntentPayment = { id: number; uid: string; cardIndex: 0 | 1; amountCents: number; installments: number; savedReference?: string; card?: PlannedCard };
export type Intent = { orderId: number; orderUid: string; customer: CustomerRow; payments: IntentPayment[] };

export type IntentInput = {
  context: PayContext;
  quote: PaymentPlanQuote;
  cards: PlannedCard[];
  gateway: string;
  masterKey: Buffer;
  timeZone: string;
  scheduledAt?: Date;
  extras: { observation?: string; tags?: string; meta?: Record<string, unknown> };
  now: Date;
};

/**
 * The intent, committed before any gateway call: the customer, the order (or the charge's own), the
 * booked slot, the claimed coupon use, the consumed gateway_c card hash keys and one `pending` payment
 * row per charge, each with its recovery job (in case this process dies before the gateway answers).
 * A refusal here (slot taken, coupon exhausted, key spent) leaves nothing behind.
 */
export async function recordIntent(db: Kysely<DB>, input: IntentInput): Promise<Intent> {
  const { context, quote, now } = input;
  const scope = { accountId: context.accountId, companyId: context.companyId };
  return db.transaction().execute(async (trx) => {
    const customer = context.existingOrder
      ? await chargeCustomer(trx, scope, context.existingOrder.customerId)
      : await resolvePayCustomer(trx, scope, context.customer, now);
    const order = context.existingOrder ?? (await createPayOrder(
      trx,
      {
        ...scope,
        customerId: customer.id,
        source: context.entry === 'cart' ? 'cart' : 'checkout_page',
        ...context.orderLinks,
        paymentPlanId: quote.planId,
        lines: context.lines,
        freightCents: context.freightCents,
        totalCents: quote.baseCents,
        discountCents: quote.coupon?.discountCents ?? 0,
        ...(quote.coupon ? { coupon: { id: quote.coupon.id, code: quote.coupon.code } } : {}),
        ...(input.scheduledAt ? { scheduledAt: input.scheduledAt } : {}),
        ...input.extras,
        cause: `POST ${context.entry === 'cart' ? '/carts/{id}/pay' : '/payments'}`,
      },
      input.timeZone,
      now,
    ));
    if (input.scheduledAt) await bookSlot(trx, { ...scope, scheduledAt: input.scheduledAt, orderId: order.id });
    if (quote.coupon && !(await claimCouponForOrder(trx, context.accountId, quote.coupon.id, order.id))) {
      throw businessRule('Coupon has reached its usage limit', [{ field: 'body/coupon', message: 'Coupon has reached its usage limit' }]);
    }
    const planned = input.cards.length ? input.cards : [undefined];
    const payments: IntentPayment[] = [];
    for (const card of planned) {
      const share = card?.quote ?? quote;
      let savedReference: string | undefined;
      if (card?.savedMethodId) {
        const saved = await findSavedMethod(trx, context.accountId, customer.id, card.savedMethodId);
        if (!saved || saved.gateway !== input.gateway) throw businessRule(`credit_card_${card.index}_card_id is not a saved card of this customer on ${input.gateway}`, [{ field: `body/credit_card_${card.index}_card_id`, message: 'unknown saved card' }]);
        savedReference = unseal(input.masterKey, saved.gateway_reference_encrypted);
      }
      if (card?.token && input.gateway === 'gateway_c') await consumeCardHashKey(trx, { ...scope, token: card.token, now });
      const uid = randomUUID();
      const id = await insertPaymentRow(trx, {
        uid,
        ...{ account_id: context.accountId, company_id: context.companyId },
        order_id: order.id,
        gateway: input.gateway,
        method: quote.paymentMethod,
        card_index: card?.index ?? 0,
        status: 'pending',
        payment_plan_id: share.planId,
        installments: share.installments,
        amount_cents: share.totalCents,
        interest_cents: share.totalCents - (card?.principalCents ?? quote.baseCents) + ((card?.index ?? 0) === 0 ? (quote.overdue?.extraCents ?? 0) : 0),
        installment_value_cents: share.installmentValueCents,
        saved_payment_method_id: card?.savedMethodId ?? null,
        created_at: now,
        updated_at: now,
      });
      await appendOrderEvent(trx, { ...scope, orderId: order.id, paymentId: id, type: 'payment.created', cause: 'payment intent recorded before calling the gateway', toStatus: 'pending', data: { amount_cents: share.totalCents, method: quote.paymentMethod, gateway: input.gateway }, at: now });
      await enqueueIntentRecovery(trx, { accountId: context.accountId, id }, now);
      payments.push({ id, uid, cardIndex: card?.index ?? 0, amountCents: share.totalCents, installments: share.installments, ...(savedReference ? { savedReference } : {}), ...(card ? { card } : {}) });
    }
    return { orderId: order.id, orderUid: order.uid, customer, payments };
  });
}

async function chargeCustomer(trx: Kysely<DB>, scope: { accountId: string; companyId: number }, customerId: number | null): Promise<CustomerRow> {
  const customer = customerId === null ? undefined : await findCustomerById(trx, scope.accountId, scope.companyId, customerId);
  if (!customer) throw businessRule('This charge has no customer to bill');
  return customer;
}
