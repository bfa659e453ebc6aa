import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { assertFitsOnePayment } from '../../../http/amount-limits.ts';
import { AppError, businessRule } from '../../../http/errors.ts';
import { centsFromBody } from '../../../http/money-input.ts';
import { type PricingQuery, quoteOption, quoteOptionInContext } from '../../payment-plans/index.ts';
import { isBookableSlot } from '../../scheduling/index.ts';
import { assertNoCardFields, planCards, type CardFields } from './pay-cards.ts';
import type { PayContext } from './pay-context.ts';
import type { GatewayAnswer } from '../attempts/pay-gateway-call.ts';
import { chargeOnce, issuedSlip, recordOnly, throwIfUnanswered } from '../attempts/charge.ts';
import { resolveGateway, type GatewayDeps } from '../attempts/pay-gateways.ts';
import { intentCustomer, recordIntent, type IntentPayment } from './pay-intent.ts';
import { assertPayerIdentity } from './payer-identity.ts';
import { findOrderItems, findOrderRow, findPayCompany, findPaymentsWithOrderStatus } from '../payments.repo.ts';
import { compensateSplit, finishPaidOrder } from './pay-finish.ts';
import { asksToKeepCard } from '../attempts/late-card.ts';
import { haveOnePeriod } from '../subscriptions/subscriptions.ts';
import type { RecordedAnswer, RecordedPayment } from '../attempts/payment-record.ts';

/** `clock`: the app's clock, read for the time after each gateway answer. */
export type PayDeps = GatewayDeps & { publicUrl: string; clock: () => Date };

export type PayBody = CardFields & {
  gateway?: string;
  scheduled_at?: string;
  observation?: string;
  tags?: string;
  meta?: Record<string, unknown>;
  /** `POST /payments` only: what the pricing errors name. */
  products?: Array<{ id: number }>;
  expected_total?: number;
};

export type PaidRow = {
  uid: string;
  gatewayId: string;
  status: string;
  method: string;
  amountCents: number;
  installments: number;
};

export type PayOutcome = {
  orderUid: string;
  orderStatus: string;
  method: 'credit_card' | 'pix' | 'bank_slip';
  payments: PaidRow[];
  pix?: { qrCode: string; url: string; expiresAt: Date };
  bankSlipUrl?: string;
  offer?: string;
  isSubscription: boolean;
  /** Card payments: the status of the (last) card charged. */
  cardStatus?: string;
  declined?: { field: string; code: string; message: string };
};

/**
 * A single payment whose answer moved it: its transaction saw the order's status and the payment's, so the
 * answer needs no read after the commit. A split, or a payment someone else moved first, is read back.
 */
function answeredAlone(
  payments: IntentPayment[],
  answers: Array<{ payment: IntentPayment; answer: GatewayAnswer; recorded: RecordedAnswer }>,
  method: string,
): { orderStatus: string; payments: PaidRow[] } | undefined {
  const only = answers.length === 1 && payments.length === 1 ? answers[0]! : undefined;
  if (!only || only.recorded.orderStatus === undefined || only.recorded.paymentStatus === undefined) return undefined;
  const gatewayId = 'gatewayId' in only.answer ? only.answer.gatewayId : null;
  const { payment } = only;
  return {
    orderStatus: only.recorded.orderStatus,
    payments: [
      {
        uid: payment.uid,
        gatewayId: gatewayId ?? payment.uid,
        status: only.recorded.paymentStatus,
        method,
        amountCents: payment.amountCents,
        installments: payment.installments,
      },
    ],
  };
}

async function readOutcome(
  db: Kysely<DB>,
  accountId: string,
  orderId: number,
  payments: IntentPayment[],
): Promise<{ orderStatus: string; payments: PaidRow[] }> {
  const rows = await findPaymentsWithOrderStatus(
    db,
    accountId,
    orderId,
    payments.map((payment) => payment.id),
  );
  return {
    orderStatus: rows[0]?.order_status ?? (await findOrderRow(db, accountId, orderId)).status,
    payments: rows.map((row) => ({
      uid: row.uid,
      gatewayId: row.gateway_id ?? row.uid,
      status: row.status,
      method: row.method,
      amountCents: row.amount_cents,
      installments: row.installments,
    })),
  };
}

async function checkedSchedule(
  db: Kysely<DB>,
  context: PayContext,
  scheduledAt: string | undefined,
  now: Date,
): Promise<Date | undefined> {
  if (scheduledAt === undefined) {
    if (context.requireScheduling)
      throw businessRule('scheduled_at is required: this page books an appointment', [
        { field: 'body/scheduled_at', message: 'is required' },
      ]);
    return undefined;
  }
  if (!context.requireScheduling)
    throw businessRule('scheduled_at needs a page with require_scheduling', [
      { field: 'body/scheduled_at', message: 'scheduling is not enabled here' },
    ]);
  const instant = new Date(scheduledAt);
  if (!(await isBookableSlot(db, context.companyId, instant, now)))
    throw businessRule('scheduled_at is not an available appointment slot', [
      { field: 'body/scheduled_at', message: 'not an available slot' },
    ]);
  return instant;
}

/** A checkout page's products come from the body (`products`, else `main_product_id`): pricing errors name that field. */
function pricingQuery(context: PayContext, body: PayBody): PricingQuery {
  if (context.entry !== 'checkout_page') return context.query;
  const items = body.products ?? [];
  const productField = items.length
    ? (productId: number, part: 'id' | 'quantity') =>
        `body/products/${Math.max(
          0,
          items.findIndex((item) => item.id === productId),
        )}/${part}`
    : () => 'body/main_product_id';
  return { ...context.query, productField };
}

/**
 * The body field a gateway refusal or decline is about: for a card, the field that named it (its token, its
 * saved card, or gateway_b's confirmation token); the chosen plan's for pix and boleto.
 */
function refusedField(method: PayOutcome['method'], payment: IntentPayment, body: PayBody): string {
  if (method !== 'credit_card') return 'body/payment_plan_id';
  const index = payment.cardIndex;
  if (payment.card?.savedMethodId !== undefined) return `body/credit_card_${index}_card_id`;
  if (payment.card?.confirmationTokenId !== undefined && index === 0 && body.confirmation_token_id !== undefined)
    return 'body/confirmation_token_id';
  return `body/credit_card_${index}_token`;
}

/**
 * The total the buyer was shown must be the total charged. A price can move while a page is open (an overdue
 * charge's late interest grows at the company's midnight): the payment is then refused before anything is
 * recorded, and the page shows the new total for the buyer to confirm.
 */
function assertShownTotal(shown: number | undefined, chargedCents: number): void {
  if (shown === undefined || centsFromBody(shown, 'expected_total') === chargedCents) return;
  const now = (chargedCents / 100).toFixed(2);
  throw new AppError('conflict', `The total changed since it was shown: ${now} is due now`, [
    { field: 'body/expected_total', message: `the total is now ${now}` },
  ]);
}

/**
 * Takes one payment: quote from the pricing module, record the intent, call the gateway outside any
 * transaction, record its answer, then compensate a half-paid split or finish a paid order (subscription,
 * upsell offer). A gateway error or timeout leaves the payment pending for reconciliation and answers 502/504.
 */
export async function takePayment(
  db: Kysely<DB>,
  deps: PayDeps,
  context: PayContext,
  body: PayBody,
  now: Date,
): Promise<PayOutcome> {
  const query = pricingQuery(context, body);
  const quote = context.pricingContext
    ? await quoteOptionInContext(db, context.pricingContext, query, body.payment_plan_id, now, context.pricingReads)
    : await quoteOption(db, query, body.payment_plan_id, now);
  const gatewayName = body.gateway ?? context.defaultGateway;
  const gateway = await resolveGateway(db, deps, context, gatewayName);
  const method = quote.paymentMethod;
  if (method !== 'credit_card') assertNoCardFields(body);
  const cards =
    method === 'credit_card'
      ? await planCards(db, {
          body,
          quote,
          context: quote.context,
          query,
          gateway: gatewayName,
          enableTwoCards: context.enableTwoCards,
          now,
        })
      : [];
  // Each charge must fit what one payment can carry; a split's cards are charged apart, so each is checked alone.
  if (cards.length === 2)
    for (const card of cards)
      assertFitsOnePayment(card.quote.totalCents, `body/credit_card_${card.index}_payment_plan`);
  else assertFitsOnePayment(quote.totalCents, 'body/payment_plan_id');
  assertShownTotal(
    body.expected_total,
    cards.length === 2 ? cards[0]!.quote.totalCents + cards[1]!.quote.totalCents : quote.totalCents,
  );
  const scheduledAt = await checkedSchedule(db, context, body.scheduled_at, now);
  const customer = await intentCustomer(db, context);
  await assertPayerIdentity(db, context, { method, gateway: gateway.client }, customer);
  const company = context.company ?? (await findPayCompany(db, context.accountId, context.companyId));
  const lines = context.existingOrder
    ? await findOrderItems(db, context.accountId, context.existingOrder.id)
    : context.lines;
  const isSubscription = lines.some((line) => line.subscription);
  // One subscription renews the order's subscription products together, so they must share a period.
  if (!haveOnePeriod(lines))
    throw businessRule('Subscription products with different intervals cannot be bought in one order', [
      {
        field: context.entry === 'checkout_page' ? 'body/products' : 'body',
        message: 'subscription products must share one interval',
      },
    ]);
  const intent = await recordIntent(db, {
    context,
    quote,
    cards,
    gateway: gatewayName,
    customer,
    masterKey: deps.masterKey,
    timeZone: company.time_zone,
    now,
    ...(scheduledAt ? { scheduledAt } : {}),
    extras: {
      ...(body.observation !== undefined ? { observation: body.observation } : {}),
      ...(body.tags !== undefined ? { tags: body.tags } : {}),
      ...(body.meta ? { meta: body.meta } : {}),
    },
  });
  const saveForLater = asksToKeepCard({ hasSubscription: isSubscription, upsellProductId: context.upsellProductId });
  const recordedOf = (payment: IntentPayment): RecordedPayment => ({
    id: payment.id,
    uid: payment.uid,
    accountId: context.accountId,
    companyId: context.companyId,
    orderId: intent.orderId,
    customerId: intent.customer.id,
    gateway: gateway.name,
  });

  const answers: Array<{ payment: IntentPayment; answer: GatewayAnswer; recorded: RecordedAnswer }> = [];
  for (const payment of intent.payments) {
    const { answer, settled } = await chargeOnce(
      db,
      deps.masterKey,
      {
        gateway,
        payment: recordedOf(payment),
        orderUid: intent.orderUid,
        method,
        amountCents: payment.amountCents,
        installments: payment.installments,
        ...(payment.card
          ? {
              card: {
                token: payment.card.token,
                confirmationTokenId: payment.card.confirmationTokenId,
                savedReference: payment.savedReference,
                saveForLater,
              },
            }
          : {}),
        buyer: intent.customer,
        company,
        purpose: `order ${intent.orderUid}`,
        deadline: { termsFrom: now },
      },
      { answeredAt: deps.clock, settle: recordOnly },
    );
    answers.push({ payment, answer, recorded: settled });
    if (answer.kind !== 'paid' && answer.kind !== 'pix' && answer.kind !== 'boleto') break;
  }
  const failed = answers.find(
    (entry) => entry.answer.kind !== 'paid' && entry.answer.kind !== 'pix' && entry.answer.kind !== 'boleto',
  );
  if (failed && intent.payments.length > 1)
    await compensateSplit(db, deps, gateway, recordedOf, intent.payments, answers.length, deps.clock());

  const { orderStatus, payments } =
    answeredAlone(intent.payments, answers, method) ??
    (await readOutcome(db, context.accountId, intent.orderId, intent.payments));
  const outcome: PayOutcome = { orderUid: intent.orderUid, orderStatus, method, payments, isSubscription };
  throwIfUnanswered(failed?.answer);
  if (failed?.answer.kind === 'refused')
    throw businessRule(`The gateway refused the payment: ${failed.answer.message}`, [
      { field: refusedField(method, failed.payment, body), message: failed.answer.code },
    ]);
  if (failed?.answer.kind === 'declined') {
    outcome.declined = {
      field: refusedField(method, failed.payment, body),
      code: failed.answer.code,
      message: failed.answer.message,
    };
  }
  if (method === 'credit_card') outcome.cardStatus = outcome.payments[outcome.payments.length - 1]?.status ?? 'pending';
  const first = answers[0];
  if (first) Object.assign(outcome, await issuedSlip(deps.publicUrl, first.payment.uid, first.answer));
  if (orderStatus === 'paid') {
    const finished = await finishPaidOrder(db, deps.masterKey, {
      context,
      orderId: intent.orderId,
      customerId: intent.customer.id,
      lines,
      planId: quote.planId,
      now: deps.clock(),
    });
    if (finished.offer) outcome.offer = finished.offer;
  }
  return outcome;
}
