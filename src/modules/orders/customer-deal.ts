import type { DealCreator } from '../customers/index.ts';
import { createOrder } from './order-create.service.ts';

/** The order `POST /customers` creates with `create_deal`: the customer's, with no items yet. */
export const createCustomerDeal: DealCreator = (db, { scope, customer, body }, now) =>
  db.transaction().execute((trx) =>
    createOrder(
      trx,
      {
        ...scope,
        customer: { id: customer.id, minimumRetentionCents: customer.minimum_retention_cents },
        items: [],
        mainProductId: body.main_product_id,
        coupon: body.coupon,
        scheduledAt: body.scheduled_at,
        observation: body.observation,
        cause: 'POST /customers create_deal',
      },
      now,
    ),
  );
