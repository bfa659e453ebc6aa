import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError, businessRule, validationFailed } from '../../http/errors.ts';
import { claimCouponForOrder, CouponError, findUsableCoupon, type UsableCoupon } from '../coupons/index.ts';
import { divideRoundHalfUp, orderAmounts } from '../pricing/index.ts';
import { dateIn } from './company-calendar.ts';
import {
  assertHasItems,
  assertOrderWithinLimit,
  assertPaymentsRecordable,
  assertPositiveTotal,
  type OrderDraft,
} from './order-create.rules.ts';
import { appendOrderEvent } from './order-events.repo.ts';
import {
  findCompany,
  findPaymentPlans,
  findProducts,
  insertOrderItems,
  insertOrderWithEvent,
  insertPayment,
  setPaidCents,
  type ProductRow,
} from './order-create.repo.ts';
import { transitionOrder } from './order-status.ts';

const OUR_GATEWAYS = new Set(['gateway_a', 'gateway_b', 'gateway_c', 'bank']);

async function pricedItems(
  db: Kysely<DB>,
  draft: OrderDraft,
): Promise<Array<{ product: ProductRow; quantity: number }>> {
  const items =
    draft.items.length === 0 && draft.mainProductId !== undefined
      ? [{ productId: draft.mainProductId, quantity: 1 }]
      : draft.items;
  const wanted = [
    ...new Set([...items.map((item) => item.productId), ...(draft.mainProductId ? [draft.mainProductId] : [])]),
  ];
  const products = new Map((await findProducts(db, draft.accountId, wanted)).map((row) => [row.id, row]));
  const unknown = draft.items.flatMap((item, i) =>
    products.has(item.productId) ? [] : [{ field: `body/items/${i}/product_id`, message: 'unknown product' }],
  );
  if (draft.mainProductId !== undefined && !products.has(draft.mainProductId))
    unknown.push({ field: 'body/main_product_id', message: 'unknown product' });
  if (unknown.length) throw validationFailed('The order names products this account does not have', unknown);
  return items.map((item) => ({ product: products.get(item.productId)!, quantity: item.quantity }));
}

async function usableCoupon(
  db: Kysely<DB>,
  draft: OrderDraft,
  productIds: number[],
  now: Date,
): Promise<UsableCoupon | undefined> {
  if (draft.coupon === undefined) return undefined;
  try {
    return await findUsableCoupon(
      db,
      { accountId: draft.accountId, companyId: draft.companyId },
      draft.coupon,
      productIds,
      now,
    );
  } catch (error) {
    if (error instanceof CouponError)
      throw businessRule(error.message, [{ field: 'body/coupon', message: error.message }]);
    throw error;
  }
}

/** Each attached payment with its gateway (ours, or `external`) and method (given, or the plan's). */
async function resolvedPayments(db: Kysely<DB>, draft: OrderDraft) {
  const payments = draft.payments ?? [];
  const plans = new Map(
    (
      await findPaymentPlans(
        db,
        draft.accountId,
        payments.flatMap((p) => p.paymentPlanId ?? []),
      )
    ).map((p) => [p.id, p]),
  );
  const errors: Array<{ field: string; message: string }> = [];
  const resolved = payments.map((payment, i) => {
    const plan = payment.paymentPlanId === undefined ? undefined : plans.get(payment.paymentPlanId);
    const method = payment.method ?? plan?.payment_method;
    if (payment.paymentPlanId !== undefined && !plan)
      errors.push({ field: `body/payments/${i}/payment_plan_id`, message: 'unknown payment plan' });
    else if (!method) errors.push({ field: `body/payments/${i}/type`, message: 'is required without payment_plan_id' });
    return {
      ...payment,
      gateway: OUR_GATEWAYS.has(payment.gateway) ? payment.gateway : 'external',
      method: method ?? 'credit_card',
    };
  });
  if (errors.length) throw validationFailed('An attached payment is invalid', errors);
  return resolved;
}

/**
 * Creates an order and everything it owns on `trx` (a transaction): items priced from the products
 * table, the coupon's discount, retention, attached payments and the event log. Its due date is its
 * date, so its link opens as a charge. Returns the order id.
 */
export async function createOrder(trx: Kysely<DB>, draft: OrderDraft, now: Date): Promise<number> {
  const company = await findCompany(trx, draft.accountId, draft.companyId);
  if (!company) throw new AppError('internal_error', 'The order’s company does not exist');
  const lines = await pricedItems(trx, draft);
  assertHasItems(lines);
  const coupon = await usableCoupon(trx, draft, [...new Set(lines.map((line) => line.product.id))], now);
  const amounts = orderAmounts(
    lines.map((line) => ({ unitCents: line.product.value_cents, quantity: line.quantity })),
    0,
    coupon?.rule,
  );
  assertOrderWithinLimit(draft, lines, amounts);
  assertPositiveTotal(amounts);
  const retentionCents = draft.calculateRetention
    ? Math.min(draft.customer.minimumRetentionCents ?? 0, amounts.totalCents)
    : 0;
  const payments = await resolvedPayments(trx, draft);
  assertPaymentsRecordable(payments);
  const date = draft.date ?? dateIn(company.time_zone, now);
  const orderId = await insertOrderWithEvent(
    trx,
    {
      uid: randomUUID(),
      account_id: draft.accountId,
      company_id: draft.companyId,
      customer_id: draft.customer.id,
      source: 'api',
      status: 'pending',
      subtotal_cents: amounts.subtotalCents,
      discount_cents: amounts.discountCents,
      freight_cents: amounts.freightCents,
      retention_cents: retentionCents,
      total_cents: amounts.totalCents,
      coupon_id: coupon?.id ?? null,
      coupon_code: coupon?.code ?? null,
      date,
      due_date: date,
      scheduled_at: draft.scheduledAt ? new Date(draft.scheduledAt) : null,
      observation: draft.observation ?? null,
      tags: draft.crmInfo?.tags ?? null,
      meta: JSON.stringify(draft.meta ?? {}),
      crm_info: JSON.stringify(draft.crmInfo ?? {}),
      skip_content_release: draft.skipContentRelease ?? false,
      calculate_retention: draft.calculateRetention ?? false,
      created_at: now,
      updated_at: now,
    },
    {
      cause: draft.cause,
      data: { total_cents: amounts.totalCents, items: lines.length, ...(coupon ? { coupon_id: coupon.id } : {}) },
      at: now,
    },
  );
  await insertOrderItems(
    trx,
    lines.map((line) => ({
      account_id: draft.accountId,
      order_id: orderId,
      product_id: line.product.id,
      product_name: line.product.name,
      unit_name: line.product.unit_name,
      quantity: line.quantity,
      unit_value_cents: line.product.value_cents,
      total_cents: line.product.value_cents * line.quantity,
      subscription: line.product.subscription,
      interval: line.product.interval,
      cycle: line.product.subscription ? line.product.interval_count : null,
    })),
  );
  // The discount is granted with the order, so the order holds its use from now on (a charge stays payable
  // whoever uses the coupon meanwhile); the conditional claim keeps the limit under concurrent creations.
  if (coupon && !(await claimCouponForOrder(trx, draft.accountId, coupon.id, orderId, now))) {
    throw businessRule('Coupon has reached its usage limit', [
      { field: 'body/coupon', message: 'Coupon has reached its usage limit' },
    ]);
  }
  await attachPayments(trx, draft, orderId, payments, amounts.totalCents, now);
  return orderId;
}

type ResolvedPayment = Awaited<ReturnType<typeof resolvedPayments>>[number];

/** Records payments received elsewhere as paid, then moves the order to paid or partially_paid. */
async function attachPayments(
  trx: Kysely<DB>,
  draft: OrderDraft,
  orderId: number,
  payments: ResolvedPayment[],
  totalCents: number,
  now: Date,
) {
  let paidCents = 0;
  let lastPaymentId: number | undefined;
  for (const [i, payment] of payments.entries()) {
    const installments = payment.installments ?? 1;
    const paymentId = await insertPayment(trx, {
      uid: randomUUID(),
      account_id: draft.accountId,
      company_id: draft.companyId,
      order_id: orderId,
      gateway: payment.gateway,
      method: payment.method,
      status: 'paid',
      payment_plan_id: payment.paymentPlanId ?? null,
      installments,
      amount_cents: payment.amountCents,
      installment_value_cents: Math.max(1, divideRoundHalfUp(BigInt(payment.amountCents), BigInt(installments))),
      gateway_id: payment.gatewayId ?? null,
      paid_at: payment.paidAt ?? now,
      created_at: now,
      updated_at: now,
    });
    if (paymentId === undefined)
      throw new AppError('conflict', 'A payment with this gateway_id is already recorded', [
        { field: `body/payments/${i}/gateway_id`, message: 'already recorded' },
      ]);
    await appendOrderEvent(trx, {
      accountId: draft.accountId,
      orderId,
      paymentId,
      type: 'payment.attached',
      cause: draft.cause,
      toStatus: 'paid',
      data: { amount_cents: payment.amountCents },
      at: now,
    });
    paidCents += payment.amountCents;
    lastPaymentId = paymentId;
  }
  if (paidCents === 0) return;
  await setPaidCents(trx, draft.accountId, orderId, paidCents);
  const to = paidCents >= totalCents ? 'paid' : 'partially_paid';
  await transitionOrder(trx, {
    accountId: draft.accountId,
    orderId,
    to,
    cause: 'payments attached at creation',
    paymentId: lastPaymentId,
    at: now,
  });
}
