import { findProducts, transitionOrder } from '../orders/index.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { businessRule } from '../../http/errors.ts';
import { unseal } from '../../lib/crypto.ts';
import {
  chargeOnce,
  createPayOrder,
  findPayCompany,
  findSavedMethod,
  type GatewayDeps,
  issuedSlip,
  recordPendingPayment,
  releasePaidOrder,
  resolveGateway,
  throwIfUnanswered,
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

/** `clock`: the app's clock, read for the time after the gateway's answer. */
export type UpsellDeps = GatewayDeps & { publicUrl: string; clock: () => Date };

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
    const payment = await recordPendingPayment(
      trx,
      {
        accountId,
        companyId: original.company_id,
        orderId: order.id,
        gateway: gateway.name,
        method,
        planId: originalPayment.payment_plan_id,
        amountCents: product.value_cents,
        savedMethodId: savedMethod?.id ?? null,
        cause: 'upsell redemption',
        recovery: true,
      },
      now,
    );
    await linkUpsellOrder(trx, offer.id, order.id);
    return { order, payment };
  });

  const payment = {
    ...created.payment,
    accountId,
    companyId: original.company_id,
    orderId: created.order.id,
    customerId: customer.id,
    gateway: gateway.name,
  };
  const charge =
    method === 'credit_card' && !savedMethod
      ? { payment, refused: { code: 'no_saved_method', message: 'The original order has no usable saved card' } }
      : {
          gateway,
          payment,
          orderUid: created.order.uid,
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
          buyer: customer,
          company,
          purpose: `upsell ${created.order.uid}`,
          deadline: { termsFrom: now },
        };
  const { answer, settled: orderStatus } = await chargeOnce(db, deps.masterKey, charge, {
    answeredAt: deps.clock,
    settle: async (trx, { answer, at, record }) => {
      const status = (await record()).orderStatus;
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
        paymentId: created.payment.id,
        at,
      });
      return 'refused';
    },
  });
  throwIfUnanswered(answer);
  const gatewayId = 'gatewayId' in answer && answer.gatewayId ? answer.gatewayId : created.payment.uid;
  const outcome: UpsellOutcome = { orderStatus: orderStatus ?? 'pending', payments: [gatewayId] };
  Object.assign(outcome, await issuedSlip(deps.publicUrl, created.payment.uid, answer));
  return outcome;
}
