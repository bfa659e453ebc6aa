import { randomUUID } from 'node:crypto';
import { toCents } from '../../lib/money.ts';
import type { CouponDocument, PaymentPlanDocument, ProductDocument } from './merchant-document.ts';
import {
  changedColumns,
  hasChanges,
  MerchantApplyError,
  resolved,
  syncIdSet,
  type CompanyScope,
} from './merchant-apply.support.ts';

/** Ids by the document's names, for the pages to reference and the result to report. */
export type CatalogIds = {
  products: Map<string, number>;
  paymentPlans: Map<string, number>;
  coupons: Map<string, number>;
};

export async function applyCatalog(
  scope: CompanyScope,
  catalog: { products?: ProductDocument[]; payment_plans?: PaymentPlanDocument[]; coupons?: CouponDocument[] },
): Promise<CatalogIds> {
  const ids: CatalogIds = { products: new Map(), paymentPlans: new Map(), coupons: new Map() };
  for (const product of catalog.products ?? [])
    ids.products.set(product.external_id, await upsertProduct(scope, product));
  for (const plan of catalog.payment_plans ?? []) ids.paymentPlans.set(plan.ref, await upsertPaymentPlan(scope, plan));
  for (const coupon of catalog.coupons ?? []) {
    const code = coupon.code.toUpperCase();
    ids.coupons.set(code, await upsertCoupon(scope, coupon, code, ids.products));
  }
  return ids;
}

// Every column is set from the document (omitted fields take the column default), and `deleted_at` is
// cleared: the document declares what exists, so a soft-deleted row it names comes back.

async function upsertProduct(
  { trx, accountId, companyId, now }: CompanyScope,
  product: ProductDocument,
): Promise<number> {
  const desired = {
    name: product.name,
    description: product.description ?? null,
    short_description: product.short_description ?? null,
    product_type: product.product_type ?? 'digital',
    value_cents: toCents(product.value),
    subscription: product.subscription ?? false,
    interval: product.interval ?? null,
    interval_count: product.interval_count ?? 1,
    unit_name: product.unit_name ?? 'unit',
    weight_grams: product.weight ?? null,
    image_url: product.image ?? null,
    ncm: product.ncm ?? null,
    tax_description: product.tax_description ?? null,
    deleted_at: null,
  };
  const stored = await trx
    .selectFrom('products')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('external_id', '=', product.external_id)
    .executeTakeFirst();
  if (!stored) {
    const values = {
      ...desired,
      uid: randomUUID(),
      account_id: accountId,
      company_id: companyId,
      external_id: product.external_id,
    };
    return (await trx.insertInto('products').values(values).returning('id').executeTakeFirstOrThrow()).id;
  }
  const changed = changedColumns(stored, desired);
  if (hasChanges(changed)) {
    await trx
      .updateTable('products')
      .set({ ...changed, updated_at: now })
      .where('id', '=', stored.id)
      .execute();
  }
  return stored.id;
}

/** The company's default fine and late-interest terms (set on the dashboard), for plans that leave them out. */
async function companyFineDefaults({ trx, accountId, companyId }: CompanyScope) {
  return trx
    .selectFrom('companies')
    .select([
      'default_fine_type',
      'default_fine_cents',
      'default_fine_tax',
      'default_late_interest_cents',
      'default_late_interest_tax',
    ])
    .where('account_id', '=', accountId)
    .where('id', '=', companyId)
    .executeTakeFirstOrThrow();
}

async function upsertPaymentPlan(scope: CompanyScope, plan: PaymentPlanDocument): Promise<number> {
  const { trx, accountId, companyId, now } = scope;
  const defaults = await companyFineDefaults(scope);
  const desired = {
    name: plan.name,
    payment_method: plan.payment_method,
    max_installments: plan.max_installments ?? 1,
    min_installment_cents: toCents(plan.min_installment ?? 0),
    fine_type: plan.fine_type ?? defaults.default_fine_type,
    fine_cents: plan.fine === undefined ? Number(defaults.default_fine_cents) : toCents(plan.fine),
    fine_tax: plan.fine_tax ?? Number(defaults.default_fine_tax),
    late_interest_cents:
      plan.late_interest === undefined ? Number(defaults.default_late_interest_cents) : toCents(plan.late_interest),
    late_interest_tax: plan.late_interest_tax ?? Number(defaults.default_late_interest_tax),
    deleted_at: null,
  };
  const stored = await trx
    .selectFrom('payment_plans')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('ref', '=', plan.ref)
    .executeTakeFirst();
  let planId: number;
  if (!stored) {
    const values = { ...desired, account_id: accountId, company_id: companyId, ref: plan.ref };
    planId = (await trx.insertInto('payment_plans').values(values).returning('id').executeTakeFirstOrThrow()).id;
  } else {
    planId = stored.id;
    const changed = changedColumns(stored, desired);
    if (hasChanges(changed)) {
      await trx
        .updateTable('payment_plans')
        .set({ ...changed, updated_at: now })
        .where('id', '=', planId)
        .execute();
    }
  }
  await replacePlanTaxes(scope, planId, plan.taxes ?? []);
  return planId;
}

async function replacePlanTaxes(
  { trx, accountId }: CompanyScope,
  planId: number,
  taxes: NonNullable<PaymentPlanDocument['taxes']>,
): Promise<void> {
  const stored = await trx
    .selectFrom('payment_plan_taxes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('payment_plan_id', '=', planId)
    .execute();
  const desired = taxes.map((tax) => ({
    installments: tax.installments,
    fixed_cents: toCents(tax.fixed ?? 0),
    percentage: tax.percentage ?? 0,
  }));
  const byInstallments = new Map(stored.map((row) => [row.installments, row]));
  const wanted = desired.map((tax) => tax.installments);
  const gone = stored.map((row) => row.installments).filter((installments) => !wanted.includes(installments));
  if (gone.length > 0) {
    await trx
      .deleteFrom('payment_plan_taxes')
      .where('account_id', '=', accountId)
      .where('payment_plan_id', '=', planId)
      .where('installments', 'in', gone)
      .execute();
  }
  for (const tax of desired) {
    const row = byInstallments.get(tax.installments);
    if (!row) {
      await trx
        .insertInto('payment_plan_taxes')
        .values({ ...tax, account_id: accountId, payment_plan_id: planId })
        .execute();
      continue;
    }
    const changed = changedColumns(row, tax);
    if (!hasChanges(changed)) continue;
    await trx
      .updateTable('payment_plan_taxes')
      .set(changed)
      .where('account_id', '=', accountId)
      .where('payment_plan_id', '=', planId)
      .where('installments', '=', tax.installments)
      .execute();
  }
}

async function upsertCoupon(
  scope: CompanyScope,
  coupon: CouponDocument,
  code: string,
  productIds: Map<string, number>,
): Promise<number> {
  const { trx, accountId, companyId, now } = scope;
  const desired = {
    type: coupon.type,
    percentage: coupon.type === 'percentage' ? coupon.value : null,
    amount_cents: coupon.type === 'price' ? toCents(coupon.value) : null,
    expires_at: coupon.expires_at === undefined ? null : new Date(coupon.expires_at),
    usage_limit: coupon.usage_limit ?? null,
    deleted_at: null,
  };
  const stored = await trx
    .selectFrom('coupons')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('code', '=', code)
    .executeTakeFirst();
  let couponId: number;
  if (!stored) {
    couponId = (
      await trx
        .insertInto('coupons')
        .values({ ...desired, account_id: accountId, company_id: companyId, code })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  } else {
    couponId = stored.id;
    if (desired.usage_limit !== null && desired.usage_limit < stored.used_count) {
      throw new MerchantApplyError(
        `coupon ${code}: usage_limit ${desired.usage_limit} is below the ${stored.used_count} uses already made`,
      );
    }
    const changed = changedColumns(stored, desired);
    if (hasChanges(changed)) {
      await trx
        .updateTable('coupons')
        .set({ ...changed, updated_at: now })
        .where('id', '=', couponId)
        .execute();
    }
  }
  // No product list means the coupon applies to every product, so the restriction rows are removed.
  const restricted = (coupon.product_external_ids ?? []).map((ref) => resolved(productIds, ref, 'product'));
  const linked = await trx
    .selectFrom('coupon_products')
    .select('product_id')
    .where('account_id', '=', accountId)
    .where('coupon_id', '=', couponId)
    .execute();
  await syncIdSet(
    linked.map((row) => row.product_id),
    restricted,
    (ids) =>
      trx
        .deleteFrom('coupon_products')
        .where('account_id', '=', accountId)
        .where('coupon_id', '=', couponId)
        .where('product_id', 'in', ids)
        .execute(),
    (ids) =>
      trx
        .insertInto('coupon_products')
        .values(ids.map((product_id) => ({ account_id: accountId, coupon_id: couponId, product_id })))
        .execute(),
  );
  return couponId;
}
