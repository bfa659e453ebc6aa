import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../http/app-context.ts';
import { assertPublicAccess } from '../../accounts/index.ts';
import { businessRule } from '../../../http/errors.ts';
import { errorResponses } from '../../../http/schemas.ts';
import { assertChargePayable, cartContext, chargeContext, checkoutPageContext } from './pay-context.ts';
import { payOwners, type PayOwner } from './pay-owner.ts';
import {
  CartPayBody,
  CartPayResultSchema,
  ChargePayBody,
  ChargePayResultSchema,
  CheckoutPayBody,
  PaymentResultSchema,
  UidParams,
} from './pay.schemas.ts';
import { takePayment, type PayDeps, type PayOutcome } from './pay.service.ts';
import { cartPayResult, chargePayResult, paymentResult } from './pay.view.ts';

const PAY_ERRORS = errorResponses(403, 404, 409, 422, 502, 503, 504);
/** A 502 leaves the payment pending and reconciled: kept under its Idempotency-Key like the 504. */
const PENDING_PAYMENT_ERRORS = [502] as const;

/** The buyer's identity fields of a pay body, as the customer input takes them. */
function identityOf(body: { customer_name?: string; customer_identification?: string }) {
  return {
    ...(body.customer_name !== undefined ? { name: body.customer_name } : {}),
    ...(body.customer_identification !== undefined ? { identification: body.customer_identification } : {}),
  };
}

/** A declined card is a 422 where the result cannot say so (PaymentResult, CartPayResult). */
function refuseDeclined(outcome: PayOutcome): void {
  if (outcome.declined)
    throw businessRule(`The card was declined (${outcome.declined.code})`, [
      { field: outcome.declined.field, message: outcome.declined.code },
    ]);
}

/**
 * The three pay entry points: a checkout page, a cart and a charge. Each names its owner (`publicOwner`), so
 * the host restriction is decided before the body is validated or an Idempotency-Key replayed; the handlers'
 * `assertPublicAccess` then costs nothing, and still covers an owner that appeared after that first read.
 */
export function registerPayRoutes(parent: FastifyInstance, context: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const owners = payOwners(db);
  const ownedBy = (owner: PayOwner) => ({
    access: 'public' as const,
    publicOwner: owner,
    idempotency: { scope: owner, keptServerErrors: PENDING_PAYMENT_ERRORS },
  });
  const deps: PayDeps = {
    masterKey: context.config.masterKey,
    gatewayUrls: context.gatewayUrls,
    publicUrl: context.config.publicUrl.replace(/\/$/, ''),
    clock: context.clock,
  };

  app.post(
    '/payments',
    {
      config: ownedBy(owners.checkoutPage),
      schema: { tags: ['Payments'], body: CheckoutPayBody, response: { 200: PaymentResultSchema, ...PAY_ERRORS } },
    },
    async (request) => {
      const body = request.body;
      const pay = await checkoutPageContext(db, body.checkout_page_id, body, {
        ...(body.customer_id !== undefined ? { customerId: body.customer_id } : {}),
        ...(body.customer_email !== undefined ? { email: body.customer_email } : {}),
        ...(body.customer_phone !== undefined ? { phone: body.customer_phone } : {}),
        ...(body.customer_address ? { address: body.customer_address } : {}),
        ...identityOf(body),
      });
      await assertPublicAccess(db, request, pay.accountId);
      const outcome = await takePayment(db, deps, pay, body, context.clock());
      refuseDeclined(outcome);
      return paymentResult(outcome, pay.redirectUrl);
    },
  );

  app.post(
    '/carts/:id/pay',
    {
      config: ownedBy(owners.cart),
      schema: {
        tags: ['Carts'],
        params: UidParams,
        body: CartPayBody,
        response: { 200: CartPayResultSchema, ...PAY_ERRORS },
      },
    },
    async (request) => {
      const { tags, customer_id, customer_email, customer_phone, customer_name, customer_identification, ...body } =
        request.body;
      const pay = await cartContext(db, request.params.id, body.coupon, {
        ...(customer_id !== undefined ? { customerId: Number(customer_id) } : {}),
        ...(customer_email !== undefined ? { email: customer_email } : {}),
        ...(customer_phone !== undefined ? { phone: customer_phone } : {}),
        ...identityOf({ customer_name, customer_identification }),
      });
      await assertPublicAccess(db, request, pay.accountId);
      const outcome = await takePayment(
        db,
        deps,
        pay,
        { ...body, ...(tags ? { tags: tags.join(',') } : {}) },
        context.clock(),
      );
      refuseDeclined(outcome);
      return cartPayResult(outcome, pay.redirectUrl);
    },
  );

  app.post(
    '/charges/:id/pay',
    {
      config: ownedBy(owners.charge),
      schema: {
        tags: ['Charges'],
        params: UidParams,
        body: ChargePayBody,
        response: { 200: ChargePayResultSchema, ...PAY_ERRORS },
      },
    },
    async (request) => {
      const { customer_name, customer_identification, ...body } = request.body;
      const pay = await chargeContext(db, request.params.id, identityOf({ customer_name, customer_identification }));
      await assertPublicAccess(db, request, pay.accountId);
      assertChargePayable(pay.orderStatus);
      const outcome = await takePayment(db, deps, pay, body, context.clock());
      return chargePayResult(outcome, `${deps.publicUrl}/pay/charges/${pay.existingOrder!.uid}/done`);
    },
  );
}
