import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Insertable } from 'kysely';
import { buildApp } from '../../src/app.ts';
import type { Database } from '../../src/db/database.ts';
import type { DB } from '../../src/db/schema.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { LogCapture, testConfig, type Tenant } from './app.ts';

type Row<T extends keyof DB> = Partial<Insertable<DB[T]>>;

/** A real app whose clock is `now` (a fixed instant or a function). */
export async function startAppAt(database: Database, now: Date | (() => Date)): Promise<FastifyInstance> {
  const clock = typeof now === 'function' ? now : () => now;
  const app = await buildApp({ config: testConfig(), database, logger: createLogger('info', new LogCapture()), clock });
  await app.ready();
  return app;
}

export async function insertProduct(database: Database, tenant: Tenant, row: Row<'products'> = {}): Promise<number> {
  const inserted = await database.db
    .insertInto('products')
    .values({
      uid: randomUUID(),
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      name: 'Product',
      value_cents: 1000,
      ...row,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function insertCheckoutPage(
  database: Database,
  tenant: Tenant,
  row: Row<'checkout_pages'> = {},
): Promise<string> {
  const id = randomUUID();
  await database.db
    .insertInto('checkout_pages')
    .values({ id, account_id: tenant.accountId, company_id: tenant.companyId, page_title: 'Page', ...row })
    .execute();
  return id;
}

export async function addPageProduct(
  database: Database,
  tenant: Tenant,
  pageId: string,
  productId: number,
  row: Row<'checkout_page_products'> = {},
): Promise<void> {
  await database.db
    .insertInto('checkout_page_products')
    .values({ account_id: tenant.accountId, checkout_page_id: pageId, product_id: productId, ...row })
    .execute();
}

export async function insertPaymentPlan(
  database: Database,
  tenant: Tenant,
  row: Row<'payment_plans'> = {},
): Promise<number> {
  const inserted = await database.db
    .insertInto('payment_plans')
    .values({
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      name: 'Card',
      payment_method: 'credit_card',
      ...row,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function insertGateway(
  database: Database,
  tenant: Tenant,
  gateway: string,
  publicKey: string | null,
  row: Row<'company_gateways'> = {},
): Promise<void> {
  await database.db
    .insertInto('company_gateways')
    .values({ account_id: tenant.accountId, company_id: tenant.companyId, gateway, public_key: publicKey, ...row })
    .execute();
}

export async function insertCompany(database: Database, tenant: Tenant, row: Row<'companies'> = {}): Promise<number> {
  const inserted = await database.db
    .insertInto('companies')
    .values({ account_id: tenant.accountId, name: 'Branch', slug: `c-${randomBytes(5).toString('hex')}`, ...row })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function insertCartPage(database: Database, tenant: Tenant): Promise<string> {
  const id = randomUUID();
  await database.db
    .insertInto('cart_pages')
    .values({
      id,
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      name: 'Cart page',
      page_title: 'Cart page',
    })
    .execute();
  return id;
}

export async function insertCart(database: Database, tenant: Tenant, cartPageId: string): Promise<string> {
  const id = randomUUID();
  await database.db
    .insertInto('carts')
    .values({
      id,
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      cart_page_id: cartPageId,
      payment_method: 'pix',
    })
    .execute();
  return id;
}

export async function insertOrder(
  database: Database,
  tenant: Tenant,
  row: Row<'orders'> = {},
): Promise<{ id: number; uid: string }> {
  return database.db
    .insertInto('orders')
    .values({
      uid: randomUUID(),
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      source: 'api',
      total_cents: 10_000,
      ...row,
    })
    .returning(['id', 'uid'])
    .executeTakeFirstOrThrow();
}

export async function insertPayment(
  database: Database,
  tenant: Tenant,
  orderId: number,
  row: Row<'payments'> = {},
): Promise<{ id: number; uid: string }> {
  return database.db
    .insertInto('payments')
    .values({
      uid: randomUUID(),
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      order_id: orderId,
      gateway: 'gateway_a',
      method: 'pix',
      amount_cents: 10_000,
      installment_value_cents: 10_000,
      ...row,
    })
    .returning(['id', 'uid'])
    .executeTakeFirstOrThrow();
}

export async function insertSchedule(
  database: Database,
  tenant: Tenant,
  companyId: number,
  weekday: number,
  startsAt: string,
  endsAt: string,
  slotMinutes = 60,
): Promise<void> {
  await database.db
    .insertInto('company_schedules')
    .values({
      account_id: tenant.accountId,
      company_id: companyId,
      weekday,
      starts_at: startsAt,
      ends_at: endsAt,
      slot_minutes: slotMinutes,
    })
    .execute();
}

export async function insertBooking(
  database: Database,
  tenant: Tenant,
  companyId: number,
  scheduledAt: Date,
  status = 'booked',
): Promise<void> {
  await database.db
    .insertInto('appointment_bookings')
    .values({ account_id: tenant.accountId, company_id: companyId, scheduled_at: scheduledAt, status })
    .execute();
}
