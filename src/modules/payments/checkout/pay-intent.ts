import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { businessRule } from '../../../http/errors.ts';
import { unseal } from '../../../lib/crypto.ts';
import { consumeCardHashKey } from '../../card-hash/index.ts';
import type { CustomerRow } from '../../customers/index.ts';
import type { PaymentPlanQuote } from '../../payment-plans/index.ts';
import { bookSlot } from '../../scheduling/index.ts';
import { claimCouponForOrder } from '../../coupons/index.ts';
import type { PlannedCard } from './pay-cards.ts';
import type { PayContext } from './pay-context.ts';
import { attemptSubject, claimAttempt } from '../attempts/attempt-claim.service.ts';
import { insertIntent, type IntentCustomer, type IntentOrder } from './intent-statement.ts';
import { payCustomerSource } from './pay-customer.ts';
import { orderCreatedEvent, payOrderItems, payOrderRow } from './pay-order.ts';
import { findCustomerSavedMethod } from '../payments.repo.ts';
import { RECONCILE_DELAY_MS } from '../attempts/payment-record.ts';

export type IntentPayment = {
  id: number;
  uid: string;
  cardIndex: 0 | 1;
  amountCents: number;
  installments: number;
  savedReference?: string;
  card?: PlannedCard;
};
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
  /** The paying customer when the caller has already resolved it (`intentCustomer`). */
  customer?: IntentCustomer;
};

/**
 * The intent, committed before any gateway call: the customer, the order (or the charge's own), the
 * booked slot, the claimed coupon use, the consumed gateway_c card hash keys and one `pending` payment
 * row per charge, each with its recovery job (in case this process dies before the gateway answers).
 * A saved card is checked to be the customer's first (a read). The rows are one statement (`insertIntent`);
 * the steps that can refuse the payment as they write (slot taken, coupon exhausted, key spent) run after it
 * in the same transaction, so a refusal leaves nothing behind. A charge or a cart is first claimed for this
 * attempt in that transaction (`claimAttempt`: one attempt in flight at a time). An intent without such steps
 * (a checkout page's new order) is the statement alone.
 */
export async function recordIntent(db: Kysely<DB>, input: IntentInput): Promise<Intent> {
  const { context, quote, now } = input;
  const scope = { accountId: context.accountId, companyId: context.companyId };
  const customer = input.customer ?? (await intentCustomer(db, context));
  const planned = (input.cards.length ? input.cards : [undefined]).map((card) => plannedPayment(input, card));
  const savedReferences = await savedCardReferences(
    db,
    input,
    'row' in customer ? { id: customer.row.id } : { email: customer.upsert.email },
  );
  const order = context.existingOrder
    ? { uid: context.existingOrder.uid, rows: { id: context.existingOrder.id } }
    : newOrder(input);
  const record = async (executor: Kysely<DB>): Promise<Intent> => {
    const written = await insertIntent(executor, {
      ...scope,
      customer,
      order: order.rows,
      payments: planned.map((payment) => payment.row),
      paymentCause: 'payment intent recorded before calling the gateway',
      recoveryAt: new Date(now.getTime() + RECONCILE_DELAY_MS),
      now,
    });
    const orderId = written.orderId;
    if (input.scheduledAt) await bookSlot(executor, { ...scope, scheduledAt: input.scheduledAt, orderId });
    if (quote.coupon && !(await claimCouponForOrder(executor, context.accountId, quote.coupon.id, orderId, now))) {
      throw businessRule('Coupon has reached its usage limit', [
        { field: 'body/coupon', message: 'Coupon has reached its usage limit' },
      ]);
    }
    const payments: IntentPayment[] = [];
    for (const [index, { card, uid, row }] of planned.entries()) {
      const savedReference = card ? savedReferences.get(card.index) : undefined;
      if (card?.token && input.gateway === 'gateway_c')
        await consumeCardHashKey(executor, { ...scope, token: card.token, now });
      payments.push({
        id: written.paymentIds[index]!,
        uid,
        cardIndex: card?.index ?? 0,
        amountCents: row.amount_cents,
        installments: row.installments,
        ...(savedReference ? { savedReference } : {}),
        ...(card ? { card } : {}),
      });
    }
    return { orderId, orderUid: order.uid, customer: written.customer, payments };
  };
  const subject = attemptSubject(context);
  const refusable =
    subject !== undefined ||
    input.scheduledAt !== undefined ||
    quote.coupon !== undefined ||
    input.cards.some((card) => card.token && input.gateway === 'gateway_c');
  if (!refusable) return record(db);
  return db.transaction().execute(async (trx) => {
    if (subject) await claimAttempt(trx, context.accountId, subject, now);
    return record(trx);
  });
}

/** Each saved card the body names, checked to be the paying customer's on this gateway (422 otherwise), unsealed. */
async function savedCardReferences(
  db: Kysely<DB>,
  input: IntentInput,
  customer: { id: number } | { email: string },
): Promise<Map<number, string>> {
  const references = new Map<number, string>();
  for (const card of input.cards) {
    if (!card.savedMethodId) continue;
    const saved = await findCustomerSavedMethod(
      db,
      { accountId: input.context.accountId, companyId: input.context.companyId },
      customer,
      card.savedMethodId,
    );
    if (!saved || saved.gateway !== input.gateway)
      throw businessRule(`credit_card_${card.index}_card_id is not a saved card of this customer on ${input.gateway}`, [
        { field: `body/credit_card_${card.index}_card_id`, message: 'unknown saved card' },
      ]);
    references.set(card.index, unseal(input.masterKey, saved.gateway_reference_encrypted));
  }
  return references;
}

function newOrder(input: IntentInput): { uid: string; rows: IntentOrder } {
  const { context, quote } = input;
  const draft = {
    accountId: context.accountId,
    companyId: context.companyId,
    source: context.entry === 'cart' ? ('cart' as const) : ('checkout_page' as const),
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
  };
  const uid = randomUUID();
  return {
    uid,
    rows: {
      row: payOrderRow(draft, uid, input.timeZone, input.now),
      event: orderCreatedEvent(draft, input.now),
      items: payOrderItems(draft, null),
    },
  };
}

/**
 * A charge's payment row (all but its order), with its uid and the card it charges. An overdue charge's
 * fine and late interest are counted on card 0, the late interest also on its own (LastPayment.interest).
 * An attempt on an existing order (a charge) keeps its own `observation` and `meta`: the order has its own.
 */
function plannedPayment(input: IntentInput, card: PlannedCard | undefined) {
  const { context, quote, now } = input;
  const share = card?.quote ?? quote;
  const overdue = (card?.index ?? 0) === 0 ? quote.overdue : undefined;
  const notes = context.existingOrder ? attemptNotes(input.extras) : {};
  const uid = randomUUID();
  const row = {
    uid,
    account_id: context.accountId,
    company_id: context.companyId,
    gateway: input.gateway,
    method: quote.paymentMethod,
    card_index: card?.index ?? 0,
    status: 'pending',
    payment_plan_id: share.planId,
    installments: share.installments,
    amount_cents: share.totalCents,
    interest_cents: share.totalCents - (card?.principalCents ?? quote.baseCents) + (overdue?.extraCents ?? 0),
    late_interest_cents: overdue?.lateInterestCents ?? 0,
    installment_value_cents: share.installmentValueCents,
    saved_payment_method_id: card?.savedMethodId ?? null,
    ...notes,
    created_at: now,
    updated_at: now,
  };
  return { uid, card, row };
}

/** The payment columns of an attempt's `observation` and `meta`, when it sent them. */
function attemptNotes(extras: IntentInput['extras']): { observation?: string; meta?: string } {
  return {
    ...(extras.observation !== undefined ? { observation: extras.observation } : {}),
    ...(extras.meta !== undefined ? { meta: JSON.stringify(extras.meta) } : {}),
  };
}

/**
 * Who pays: a charge's own customer (with the identity the body sent), `customer_id`, or the contact fields
 * to upsert by email. A read only; the intent writes it.
 */
export async function intentCustomer(db: Kysely<DB>, context: PayContext): Promise<IntentCustomer> {
  if (context.existingOrder?.customerId === null) throw businessRule('This charge has no customer to bill');
  return payCustomerSource(db, { accountId: context.accountId, companyId: context.companyId }, context.customer);
}
