import { appendOrderEvent, dateInDaysAfter, findProducts, transitionOrder } from '../orders/index.ts';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { pixQrPngBase64 } from '../../brazil/render/index.ts';
import type { GatewayName } from '../../gateways/port.ts';
import { AppError, businessRule } from '../../http/errors.ts';
import { unseal } from '../../lib/crypto.ts';
import {
  createPayOrder,
  enqueueIntentRecovery,
  findPayCompany,
  findSavedMethod,
  type GatewayAnswer,
  type GatewayDeps,
  insertPaymentRow,
  recordGatewayAnswer,
  releasePaidOrder,
  resolveGateway,
  submitToGateway,
  verifyOfferToken,
} from '../payments/index.ts';
import {
  consumeOffer,
  findCustomer,
  findOriginalOrder,
  findOriginalPayment,
  keptCentsOfOrder,
  linkUpsellOrder,
} from './upsell.repo.ts';

export type UpsellDeps = GatewayDeps & { publicUrl: string };

export type UpsellOutcome = {
  orderStatus: string;
  payments: string[];
  bankSlipUrl?: string;
  pix?: { qrCode: string; url: string; expiresAt: Date };
};

const INVALID_OFFER = 'The offer is invalid, has expired or has already been used';

/**
 * Redeems a one-click upsell offer: the token is verified, the offer row consumed (single use, before
 * any charge), an upsell order created for the offer's product (parent = the original order), and the
 * original order's method used again: its saved card, or a new pix or boleto.
 */
export async function redeemOffer(
  db: Kysely<DB>,
  deps: UpsellDeps,
  body: { offer: string; meta?: Record<string, unknown> },
  now: Date,
): Promise<UpsellOutcome> {
  const verified = verifyOfferToken(deps.masterKey, body.offer, now);
  if (!verified) throw businessRule(INVALID_OFFER, [{ field: 'body/offer', message: 'invalid or expired' }]);
  const spent = await db.transaction().execute(async (trx) => {
    const offer = await consumeOffer(trx, verified.offerId, now);
    if (!offer) return undefined;
    // Refused inside the spending transaction: a refunded or charged-back order's offer stays unspent, and unusable.
    const original = await findOriginalOrder(trx, offer.account_id, offer.order_id);
    if (original.status !== 'paid' && original.status !== 'billed')
      throw businessRule(
        `The original order is ${original.status.replace('_', ' ')}: its offer can no longer be redeemed`,
        [{ field: 'body/offer', message: 'the original order is no longer paid' }],
      );
    // A refund already reserved (its gateway call in flight) gives the order back too.
    if ((await keptCentsOfOrder(trx, offer.account_id, original.id)) < original.paid_cents)
      throw businessRule('The original order is being refunded: its offer can no longer be redeemed', [
        { field: 'body/offer', message: 'the original order is being refunded' },
      ]);
    const [product] = await findProducts(trx, offer.account_id, [offer.product_id]);
    // Refused inside the spending transaction, so the offer stays redeemable should the product get a price.
    if (product && product.value_cents <= 0)
      throw businessRule('The offered product is free: there is nothing to charge', [
        { field: 'body/offer', message: 'the offered product has no price' },
      ]);
    return { offer, product, original };
  });
  if (!spent) throw businessRule(INVALID_OFFER, [{ field: 'body/offer', message: 'already used or expired' }]);
  const { offer, product, original } = spent;
  const accountId = offer.account_id;
  const originalPayment = await findOriginalPayment(db, accountId, original.id);
  if (!product || !originalPayment || original.customer_id === null)
    throw businessRule('The offer can no longer be fulfilled (its product or the original payment is gone)');
  const method = originalPayment.method as 'credit_card' | 'pix' | 'bank_slip';
  const gateway = await resolveGateway(
    db,
    deps,
    { accountId, companyId: original.company_id },
    originalPayment.gateway,
  );
  const company = await findPayCompany(db, accountId, original.company_id);
  const customer = await findCustomer(db, accountId, original.customer_id);
  const savedMethod =
    method === 'credit_card' && originalPayment.saved_payment_method_id
      ? await findSavedMethod(db, accountId, customer.id, originalPayment.saved_payment_method_id)
      : undefined;

  const upsellLine = {
    productId: product.id,
    name: product.name,
    unitName: product.unit_name,
    quantity: 1,
    unitCents: product.value_cents,
    totalCents: product.value_cents,
    subscription: product.subscription,
    interval: product.interval,
    intervalCount: product.interval_count,
  };
  const planId = originalPayment.payment_plan_id ?? original.payment_plan_id;
  const created = await db.transaction().execute(async (trx) => {
    const order = await createPayOrder(
      trx,
      {
        accountId,
        companyId: original.company_id,
        customerId: customer.id,
        source: 'upsell',
        parentOrderId: original.id,
        paymentPlanId: planId,
        lines: [upsellLine],
        freightCents: 0,
        totalCents: product.value_cents,
        discountCents: 0,
        ...(body.meta ? { meta: body.meta } : {}),
        cause: `upsell offer ${offer.id} of order ${original.uid}`,
      },
      company.time_zone,
      now,
    );
    const uid = randomUUID();
    const paymentId = await insertPaymentRow(trx, {
      uid,
      account_id: accountId,
      company_id: original.company_id,
      order_id: order.id,
      gateway: gateway.name,
      method,
      status: 'pending',
      payment_plan_id: originalPayment.payment_plan_id,
      installments: 1,
      amount_cents: product.value_cents,
      installment_value_cents: product.value_cents,
      saved_payment_method_id: savedMethod?.id ?? null,
      created_at: now,
      updated_at: now,
    });
    await appendOrderEvent(trx, {
      accountId,
      orderId: order.id,
      paymentId,
      type: 'payment.created',
      cause: 'upsell redemption',
      toStatus: 'pending',
      at: now,
    });
    await enqueueIntentRecovery(trx, { accountId, id: paymentId }, now);
    await linkUpsellOrder(trx, offer.id, order.id);
    return { order, paymentId, uid };
  });

  let answer: GatewayAnswer = {
    kind: 'refused',
    code: 'no_saved_method',
    message: 'The original order has no usable saved card',
  };
  if (method !== 'credit_card' || savedMethod) {
    answer = await submitToGateway(gateway, {
      paymentUid: created.uid,
      method,
      amountCents: product.value_cents,
      installments: 1,
      ...(savedMethod
        ? {
            card: {
              savedReference: unseal(deps.masterKey, savedMethod.gateway_reference_encrypted),
              saveForLater: false,
            },
          }
        : {}),
      pixExpiresAt: new Date(now.getTime() + company.pix_expiration_minutes * 60_000),
      boletoDueDate: dateInDaysAfter(company.time_zone, now, company.boleto_due_days),
      buyer: { name: customer.name, email: customer.email, document: customer.identification, phone: customer.phone },
      description: `${company.name} upsell ${created.order.uid}`,
      metadata: { companyId: original.company_id, orderUid: created.order.uid, paymentUid: created.uid },
    });
  }
  const recorded = {
    id: created.paymentId,
    uid: created.uid,
    accountId,
    companyId: original.company_id,
    orderId: created.order.id,
    customerId: customer.id,
    gateway: gateway.name as GatewayName,
  };
  const orderStatus = await db.transaction().execute(async (trx) => {
    const at = new Date();
    const status = (await recordGatewayAnswer(trx, deps.masterKey, recorded, answer, at)).orderStatus;
    // A subscription product bought by upsell starts its subscription as at checkout (a pix or boleto once confirmed).
    if (status === 'paid')
      await releasePaidOrder(trx, {
        accountId,
        companyId: original.company_id,
        orderId: created.order.id,
        customerId: customer.id,
        lines: [upsellLine],
        planId,
        upsellProductId: null,
        now: at,
      });
    if (answer.kind !== 'declined' && answer.kind !== 'refused') return status;
    // The offer is spent, so a declined upsell order can never be paid: it is closed.
    await transitionOrder(trx, {
      accountId,
      orderId: created.order.id,
      to: 'cancelled',
      cause: `upsell charge ${answer.kind}: ${answer.code}`,
      paymentId: created.paymentId,
      at: new Date(),
    });
    return 'refused';
  });
  if (answer.kind === 'unavailable') {
    throw new AppError(
      answer.reason === 'timeout' ? 'gateway_timeout' : 'gateway_error',
      answer.reason === 'timeout'
        ? 'The gateway did not answer in time; the payment will be reconciled'
        : 'The gateway failed; the payment will be reconciled (a new attempt needs a new Idempotency-Key)',
    );
  }
  const gatewayId = 'gatewayId' in answer && answer.gatewayId ? answer.gatewayId : created.uid;
  const outcome: UpsellOutcome = { orderStatus: orderStatus ?? 'pending', payments: [gatewayId] };
  if (answer.kind === 'pix')
    outcome.pix = {
      qrCode: await pixQrPngBase64(answer.brCode),
      url: `${deps.publicUrl}/pay/pix/${created.uid}`,
      expiresAt: answer.expiresAt,
    };
  if (answer.kind === 'boleto') outcome.bankSlipUrl = `${deps.publicUrl}/pay/boleto/${created.uid}`;
  return outcome;
}
