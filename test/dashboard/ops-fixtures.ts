/** A customer with an order that started a subscription, and one failed renewal order: the subscription pages' data. */

import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/database.ts';
import type { Tenant } from '../support/app.ts';
import { insertCustomer, insertOrder } from '../support/records-fixtures.ts';

export async function insertSubscriber(database: Database, tenant: Tenant, name = 'Joana Assinante') {
  const customerId = await insertCustomer(database, tenant, {
    name,
    email: `${name.split(' ')[0]!.toLowerCase()}-${tenant.slug}@example.com`,
    identification: '52998224725',
  });
  const origin = await insertOrder(database, tenant, {
    customer_id: customerId,
    status: 'paid',
    items: [{ name: 'Clube do livro', unitCents: 4990 }],
  });
  const renewal = await insertOrder(database, tenant, {
    customer_id: customerId,
    status: 'cancelled',
    source: 'subscription',
    parent_order_id: origin.id,
    items: [{ name: 'Clube do livro', unitCents: 4990 }],
  });
  const id = randomUUID();
  const now = new Date();
  await database.db
    .insertInto('subscriptions')
    .values({
      id,
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      customer_id: customerId,
      origin_order_id: origin.id,
      status: 'past_due',
      interval: 'month',
      interval_count: 1,
      amount_cents: 4990,
      current_period_start: now,
      current_period_end: new Date(now.getTime() + 30 * 86_400_000),
      next_charge_at: new Date(now.getTime() + 86_400_000),
      failed_attempts: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { customerId, originOrderId: origin.id, renewalOrderId: renewal.id, subscriptionId: id };
}
