import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DB } from '../../db/schema.ts';
import { customerColumns, upsertCustomer } from '../customers/index.ts';
import { centsFromBody } from '../../http/money-input.ts';
import type { AttachedPayment } from './order-create.rules.ts';
import { createOrder } from './order-create.service.ts';
import type { OrderCreateBody } from './orders.schemas.ts';

type CreateBody = Static<typeof OrderCreateBody>;

/**
 * POST /orders: upserts the customer (the same upsert as POST /customers) and creates the order, in
 * one transaction, so a refused order leaves no customer change behind. Returns the order id.
 */
export async function createOrderFromRequest(
  db: Kysely<DB>,
  scope: { accountId: string; companyId: number },
  body: CreateBody,
  now: Date,
): Promise<number> {
  const customer = customerColumns(body.customer, 'customer/');
  const payments: AttachedPayment[] = (body.payments ?? []).map((payment, i) => ({
    gateway: payment.gateway,
    gatewayId: payment.gateway_id,
    paymentPlanId: payment.payment_plan_id,
    amountCents: centsFromBody(payment.amount, `payments/${i}/amount`),
    method: payment.type,
    installments: payment.installments,
    paidAt: payment.paid_at ? new Date(payment.paid_at) : undefined,
  }));
  return db.transaction().execute(async (trx) => {
    const row = await upsertCustomer(trx, scope, customer, now);
    return createOrder(
      trx,
      {
        ...scope,
        customer: { id: row.id, minimumRetentionCents: row.minimum_retention_cents },
        items: (body.items ?? []).map((item) => ({ productId: item.product_id, quantity: item.quantity ?? 1 })),
        mainProductId: body.main_product_id,
        coupon: body.coupon,
        date: body.date,
        scheduledAt: body.scheduled_at,
        observation: body.observation,
        meta: body.meta,
        crmInfo: body.crm_info,
        skipContentRelease: body.skip_content_release,
        calculateRetention: body.calculate_retention === true || body.customer.retention === true,
        payments,
        cause: 'POST /orders',
      },
      now,
    );
  });
}
