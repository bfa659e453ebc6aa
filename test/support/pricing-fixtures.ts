import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTenant, testConfig, type Tenant } from './app.ts';

type Db = Database['db'];

/** A real app whose clock the test sets (`setNow`), so due dates and coupon expiry are exact. */
export async function startPricingApp(
  database: Database,
  initialNow: Date,
): Promise<{ app: FastifyInstance; config: Config; setNow(now: Date): void }> {
  let now = initialNow;
  const config = testConfig();
  const app = await buildApp({ config, database, logger: createLogger('silent'), clock: () => now });
  await app.ready();
  return { app, config, setNow: (next) => (now = next) };
}

export async function insertProduct(
  db: Db,
  tenant: Tenant,
  valueCents: number,
  options: { companyId?: number; deleted?: boolean } = {},
): Promise<number> {
  const row = await db
    .insertInto('products')
    .values({
      uid: randomUUID(),
      account_id: tenant.accountId,
      company_id: options.companyId ?? tenant.companyId,
      name: `Product ${valueCents}`,
      value_cents: valueCents,
      deleted_at: options.deleted ? new Date() : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export type PlanInput = {
  name?: string;
  method: 'credit_card' | 'bank_slip' | 'pix';
  maxInstallments?: number;
  minInstallmentCents?: number;
  fineType?: 'fixed' | 'percentage';
  fineCents?: number;
  fineTax?: number;
  lateInterestCents?: number;
  lateInterestTax?: number;
  taxes?: { installments: number; fixedCents?: number; percentage?: number }[];
  deleted?: boolean;
  companyId?: number;
};

export async function insertPlan(db: Db, tenant: Tenant, plan: PlanInput): Promise<number> {
  const row = await db
    .insertInto('payment_plans')
    .values({
      account_id: tenant.accountId,
      company_id: plan.companyId ?? tenant.companyId,
      name: plan.name ?? plan.method,
      payment_method: plan.method,
      max_installments: plan.maxInstallments ?? 1,
      min_installment_cents: plan.minInstallmentCents ?? 0,
      fine_type: plan.fineType ?? 'percentage',
      fine_cents: plan.fineCents ?? 0,
      fine_tax: plan.fineTax ?? 0,
      late_interest_cents: plan.lateInterestCents ?? 0,
      late_interest_tax: plan.lateInterestTax ?? 0,
      deleted_at: plan.deleted ? new Date() : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const tax of plan.taxes ?? []) {
    await db
      .insertInto('payment_plan_taxes')
      .values({
        account_id: tenant.accountId,
        payment_plan_id: row.id,
        installments: tax.installments,
        fixed_cents: tax.fixedCents ?? 0,
        percentage: tax.percentage ?? 0,
      })
      .execute();
  }
  return row.id;
}

export type CouponInput = {
  code: string;
  percentage?: number;
  amountCents?: number;
  expiresAt?: Date;
  usageLimit?: number;
  usedCount?: number;
  productIds?: number[];
  deleted?: boolean;
};

export async function insertCoupon(db: Db, tenant: Tenant, coupon: CouponInput): Promise<number> {
  const row = await db
    .insertInto('coupons')
    .values({
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      code: coupon.code,
      type: coupon.percentage !== undefined ? 'percentage' : 'price',
      percentage: coupon.percentage ?? null,
      amount_cents: coupon.percentage !== undefined ? null : (coupon.amountCents ?? 100),
      expires_at: coupon.expiresAt ?? null,
      usage_limit: coupon.usageLimit ?? null,
      used_count: coupon.usedCount ?? 0,
      deleted_at: coupon.deleted ? new Date() : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const productId of coupon.productIds ?? []) {
    await db
      .insertInto('coupon_products')
      .values({ account_id: tenant.accountId, coupon_id: row.id, product_id: productId })
      .execute();
  }
  return row.id;
}

export type PageProduct = { id: number; allowQuantity?: boolean; maxQuantity?: number };

export async function insertCheckoutPage(
  db: Db,
  tenant: Tenant,
  page: {
    products: PageProduct[];
    planIds: number[];
    enableCoupons?: boolean;
    defaultPlanId?: number;
    deleted?: boolean;
  },
): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('checkout_pages')
    .values({
      id,
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      page_title: 'Pricing page',
      enable_coupons: page.enableCoupons ?? true,
      default_payment_plan_id: page.defaultPlanId ?? null,
      deleted_at: page.deleted ? new Date() : null,
    })
    .execute();
  for (const product of page.products) {
    await db
      .insertInto('checkout_page_products')
      .values({
        account_id: tenant.accountId,
        checkout_page_id: id,
        product_id: product.id,
        allow_quantity: product.allowQuantity ?? true,
        max_quantity: product.maxQuantity ?? 10,
      })
      .execute();
  }
  for (const planId of page.planIds) {
    await db
      .insertInto('checkout_page_payment_plans')
      .values({ account_id: tenant.accountId, checkout_page_id: id, payment_plan_id: planId })
      .execute();
  }
  return id;
}

export async function insertCartPage(
  db: Db,
  tenant: Tenant,
  page: { planIds: number[]; enableCoupons?: boolean; defaultPlanId?: number },
): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('cart_pages')
    .values({
      id,
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      name: 'Cart page',
      page_title: 'Cart page',
      enable_coupons: page.enableCoupons ?? true,
      default_payment_plan_id: page.defaultPlanId ?? null,
    })
    .execute();
  for (const planId of page.planIds) {
    await db
      .insertInto('cart_page_payment_plans')
      .values({ account_id: tenant.accountId, cart_page_id: id, payment_plan_id: planId })
      .execute();
  }
  return id;
}

export type CartItemInput = { productId?: number; quantity: number; unitCents: number; totalCents?: number };

export async function insertCart(
  db: Db,
  tenant: Tenant,
  cart: { cartPageId: string; items: CartItemInput[]; freightCents?: number; totalOverrideCents?: number },
): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('carts')
    .values({
      id,
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      cart_page_id: cart.cartPageId,
      payment_method: 'credit_card',
      freight_cents: cart.freightCents ?? 0,
      total_override_cents: cart.totalOverrideCents ?? null,
    })
    .execute();
  for (const [position, item] of cart.items.entries()) {
    await db
      .insertInto('cart_items')
      .values({
        account_id: tenant.accountId,
        cart_id: id,
        product_id: item.productId ?? null,
        name: `Item ${position}`,
        quantity: item.quantity,
        unit_value_cents: item.unitCents,
        total_cents: item.totalCents ?? item.quantity * item.unitCents,
        position,
      })
      .execute();
  }
  return id;
}

/** An order; a charge when `dueDate` is set. Its stored total is subtotal − discount + freight. */
export async function insertOrder(
  db: Db,
  tenant: Tenant,
  order: { subtotalCents: number; freightCents?: number; discountCents?: number; dueDate?: string; planId?: number },
): Promise<string> {
  const uid = randomUUID();
  const freight = order.freightCents ?? 0;
  const discount = order.discountCents ?? 0;
  await db
    .insertInto('orders')
    .values({
      uid,
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      source: order.dueDate ? 'charge' : 'api',
      payment_plan_id: order.planId ?? null,
      subtotal_cents: order.subtotalCents,
      discount_cents: discount,
      freight_cents: freight,
      total_cents: order.subtotalCents - discount + freight,
      due_date: order.dueDate ?? null,
    })
    .execute();
  return uid;
}

export async function setTimeZone(db: Db, tenant: Tenant, timeZone: string): Promise<void> {
  await db
    .updateTable('companies')
    .set({ time_zone: timeZone })
    .where('id', '=', tenant.companyId)
    .returning('id')
    .execute();
}

/** A second company of the tenant's account, as a tenant-shaped handle. */
export async function addCompany(db: Db, tenant: Tenant, slug: string): Promise<Tenant> {
  const company = await db
    .insertInto('companies')
    .values({ account_id: tenant.accountId, name: `Company ${slug}`, slug })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { ...tenant, companyId: company.id, slug };
}

/**
 * The merchant most endpoint tests share: a card plan (up to 6x, minimum R$ 10,00 per installment,
 * 2x 1.79%, 3x 2.5% + R$ 0,50, 4x–6x 3%), a Pix plan, a boleto plan (2% fine, 1% a month), a deleted
 * plan, products of R$ 100,00, R$ 49,90 and R$ 10,00, coupons of every kind, and pages that use them.
 */
export async function createPricingMerchant(database: Database, allowedHosts: string[]) {
  const db = database.db;
  const tenant = await createTenant(database, { allowedHosts });
  const card = await insertPlan(db, tenant, {
    name: 'Cartão',
    method: 'credit_card',
    maxInstallments: 6,
    minInstallmentCents: 1000,
    taxes: [
      { installments: 2, percentage: 1.79 },
      { installments: 3, percentage: 2.5, fixedCents: 50 },
      ...[4, 5, 6].map((installments) => ({ installments, percentage: 3 })),
    ],
  });
  const pix = await insertPlan(db, tenant, { name: 'Pix', method: 'pix' });
  const boleto = await insertPlan(db, tenant, { name: 'Boleto', method: 'bank_slip', fineTax: 2, lateInterestTax: 1 });
  const deletedPlan = await insertPlan(db, tenant, { name: 'Old', method: 'credit_card', deleted: true });
  const course = await insertProduct(db, tenant, 10_000);
  const ebook = await insertProduct(db, tenant, 4_990);
  const sticker = await insertProduct(db, tenant, 1_000);
  const offPage = await insertProduct(db, tenant, 2_500);
  const past = new Date('2020-01-01T00:00:00Z');
  const coupons = {
    percent: await insertCoupon(db, tenant, { code: 'TEN', percentage: 10 }),
    price: await insertCoupon(db, tenant, { code: 'MINUS20', amountCents: 2_000 }),
    expired: await insertCoupon(db, tenant, { code: 'OLD', percentage: 15, expiresAt: past }),
    exhausted: await insertCoupon(db, tenant, { code: 'GONE', percentage: 50, usageLimit: 2, usedCount: 2 }),
    restricted: await insertCoupon(db, tenant, { code: 'EBOOKONLY', amountCents: 500, productIds: [ebook] }),
  };
  const page = await insertCheckoutPage(db, tenant, {
    products: [
      { id: course, allowQuantity: true, maxQuantity: 3 },
      { id: ebook },
      { id: sticker, allowQuantity: false },
    ],
    planIds: [card, pix, boleto, deletedPlan],
    defaultPlanId: pix,
  });
  const cardOnlyPage = await insertCheckoutPage(db, tenant, {
    products: [{ id: course }],
    planIds: [card],
    enableCoupons: false,
  });
  const cartPage = await insertCartPage(db, tenant, { planIds: [card, boleto] });
  return {
    tenant,
    plans: { card, pix, boleto, deletedPlan },
    products: { course, ebook, sticker, offPage },
    coupons,
    page,
    cardOnlyPage,
    cartPage,
  };
}

export type PricingMerchant = Awaited<ReturnType<typeof createPricingMerchant>>;
