import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Insertable } from 'kysely';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import type { Orders } from '../../src/db/schema.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { LogCapture, testConfig, type Tenant } from './app.ts';

export const VALID_CPF = '52998224725';
export const VALID_CNPJ = '11222333000181';
/** The Receita Federal's example of an alphanumeric CNPJ (12.ABC.345/01DE-35). */
export const VALID_ALPHANUMERIC_CNPJ = '12ABC34501DE35';

/** A real app whose clock the test controls (PUBLIC_URL http://pay.test). */
export async function startRecordsApp(
  database: Database,
  options: { clock?: () => Date; env?: NodeJS.ProcessEnv } = {},
): Promise<{ app: FastifyInstance; config: Config; logs: LogCapture }> {
  const config = testConfig(options.env);
  const logs = new LogCapture();
  const app = await buildApp({
    config,
    database,
    logger: createLogger('info', logs),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  await app.ready();
  return { app, config, logs };
}

type ProductOptions = {
  name?: string;
  valueCents?: number;
  companyId?: number;
  subscription?: boolean;
  interval?: string;
  intervalCount?: number;
  externalId?: string;
  imageUrl?: string;
  description?: string;
  productType?: string;
  unitName?: string;
  deleted?: boolean;
};

export async function insertProduct(database: Database, tenant: Tenant, options: ProductOptions = {}): Promise<number> {
  const row = await database.db
    .insertInto('products')
    .values({
      uid: randomUUID(),
      account_id: tenant.accountId,
      company_id: options.companyId ?? tenant.companyId,
      name: options.name ?? 'Product',
      value_cents: options.valueCents ?? 10_000,
      subscription: options.subscription ?? false,
      interval: options.interval ?? null,
      interval_count: options.intervalCount ?? 1,
      external_id: options.externalId ?? null,
      image_url: options.imageUrl ?? null,
      description: options.description ?? null,
      product_type: options.productType ?? 'digital',
      unit_name: options.unitName ?? 'unit',
      deleted_at: options.deleted ? new Date() : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function insertPaymentPlan(
  database: Database,
  tenant: Tenant,
  method = 'credit_card',
  name = 'Cartão',
): Promise<number> {
  const row = await database.db
    .insertInto('payment_plans')
    .values({
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      name,
      payment_method: method,
      max_installments: 12,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function insertGateway(
  database: Database,
  tenant: Tenant,
  gateway: string,
  publicKey: string | null,
): Promise<void> {
  await database.db
    .insertInto('company_gateways')
    .values({ account_id: tenant.accountId, company_id: tenant.companyId, gateway, public_key: publicKey })
    .execute();
}

type CouponOptions = {
  code: string;
  percentage?: number;
  amountCents?: number;
  expiresAt?: Date;
  usageLimit?: number;
  usedCount?: number;
  productIds?: number[];
};

export async function insertCoupon(database: Database, tenant: Tenant, options: CouponOptions): Promise<number> {
  const row = await database.db
    .insertInto('coupons')
    .values({
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      code: options.code,
      type: options.amountCents === undefined ? 'percentage' : 'price',
      percentage: options.amountCents === undefined ? (options.percentage ?? 10) : null,
      amount_cents: options.amountCents ?? null,
      expires_at: options.expiresAt ?? null,
      usage_limit: options.usageLimit ?? null,
      used_count: options.usedCount ?? 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const productId of options.productIds ?? []) {
    await database.db
      .insertInto('coupon_products')
      .values({ account_id: tenant.accountId, coupon_id: row.id, product_id: productId })
      .execute();
  }
  return row.id;
}

type PageOptions = {
  title?: string;
  gateway?: string;
  mainColor?: string;
  logoUrl?: string;
  menus?: unknown[];
  integrations?: Record<string, unknown>;
  enableCoupons?: boolean;
  enableTwoCards?: boolean;
  customCode?: string;
  defaultPaymentPlanId?: number;
  deleted?: boolean;
};

function pageColumns(tenant: Tenant, options: PageOptions) {
  return {
    account_id: tenant.accountId,
    company_id: tenant.companyId,
    page_title: options.title ?? 'Page',
    gateway: options.gateway ?? 'gateway_a',
    main_color: options.mainColor ?? '#1a73e8',
    logo_url: options.logoUrl ?? null,
    menus: JSON.stringify(options.menus ?? []),
    integrations: JSON.stringify(options.integrations ?? {}),
    enable_coupons: options.enableCoupons ?? false,
    enable_two_cards: options.enableTwoCards ?? false,
    custom_code: options.customCode ?? null,
    default_payment_plan_id: options.defaultPaymentPlanId ?? null,
    deleted_at: options.deleted ? new Date() : null,
  };
}

export async function insertCartPage(
  database: Database,
  tenant: Tenant,
  options: PageOptions & { name?: string } = {},
): Promise<string> {
  const id = randomUUID();
  await database.db
    .insertInto('cart_pages')
    .values({ id, name: options.name ?? 'Cart page', ...pageColumns(tenant, options) })
    .execute();
  return id;
}

export async function insertCheckoutPage(
  database: Database,
  tenant: Tenant,
  options: PageOptions = {},
): Promise<string> {
  const id = randomUUID();
  await database.db
    .insertInto('checkout_pages')
    .values({ id, ...pageColumns(tenant, options) })
    .execute();
  return id;
}

type CustomerOptions = {
  email?: string;
  name?: string;
  identification?: string;
  phone?: string;
  foreign?: boolean;
  socialReason?: string;
  city?: string;
  street?: string;
  minimumRetentionCents?: number;
};

export async function insertCustomer(
  database: Database,
  tenant: Tenant,
  options: CustomerOptions = {},
): Promise<number> {
  const row = await database.db
    .insertInto('customers')
    .values({
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      email: options.email ?? `${randomUUID()}@example.com`,
      name: options.name ?? 'Maria Silva',
      identification: options.identification ?? null,
      phone: options.phone ?? null,
      foreign: options.foreign ?? false,
      social_reason: options.socialReason ?? null,
      city: options.city ?? null,
      street: options.street ?? null,
      minimum_retention_cents: options.minimumRetentionCents ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export type OrderOptions = Partial<Insertable<Orders>> & {
  items?: Array<{ productId?: number; name?: string; quantity?: number; unitCents?: number }>;
};

/** An order inserted directly (with its items), for list and read tests. */
export async function insertOrder(
  database: Database,
  tenant: Tenant,
  options: OrderOptions = {},
): Promise<{ id: number; uid: string }> {
  const { items = [], ...columns } = options;
  const uid = randomUUID();
  const total = items.reduce((sum, item) => sum + (item.unitCents ?? 1000) * (item.quantity ?? 1), 0);
  const order = await database.db
    .insertInto('orders')
    .values({
      uid,
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      source: 'api',
      subtotal_cents: total,
      total_cents: total,
      ...columns,
      meta: typeof columns.meta === 'string' ? columns.meta : JSON.stringify(columns.meta ?? {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const item of items) {
    await database.db
      .insertInto('order_items')
      .values({
        account_id: tenant.accountId,
        order_id: order.id,
        product_id: item.productId ?? null,
        product_name: item.name ?? 'Item',
        quantity: item.quantity ?? 1,
        unit_value_cents: item.unitCents ?? 1000,
        total_cents: (item.unitCents ?? 1000) * (item.quantity ?? 1),
      })
      .execute();
  }
  return { id: order.id, uid };
}

export async function orderEvents(database: Database, orderId: number) {
  return database.db
    .selectFrom('order_events')
    .select(['type', 'from_status', 'to_status', 'cause', 'payment_id'])
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}
