import { sql, type Expression, type Insertable, type Kysely } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import type { DB, Payments } from '../../db/schema.ts';
import { appendOrderEvent, PURCHASED_STATUSES } from '../orders/index.ts';
import { pageProductsQuery, planRowsQuery } from '../payment-plans/index.ts';

/* Contexts are found by their unguessable uuid; everything after that is filtered by account. */

/**
 * The checkout page with everything the pay flow reads of it, in one statement: its company's figures, the
 * products the body names (`productIds`), its payment plans with their tax rows, and the company's account at
 * the page's gateway. The products, plans and account are the reads `listPageProducts`, `listPlanRows` and
 * `findCompanyGateway` make, as subqueries of the page's row.
 */
export function findPayPage(db: Kysely<DB>, id: string, productIds: number[]) {
  const accountId = sql<string>`page.account_id`;
  return db
    .selectFrom('checkout_pages as page')
    .innerJoin('companies as company', (join) =>
      join.onRef('company.id', '=', 'page.company_id').onRef('company.account_id', '=', 'page.account_id'),
    )
    .select([
      'page.id',
      'page.account_id',
      'page.company_id',
      'page.gateway',
      'page.enable_two_cards',
      'page.require_scheduling',
      'page.asks_payer_identity',
      'page.upsell_product_id',
      'page.redirect_url',
      'page.currency',
      'page.enable_coupons',
      'page.default_payment_plan_id',
    ])
    .select([
      'company.name as company_name',
      'company.time_zone',
      'company.pix_expiration_minutes',
      'company.boleto_due_days',
    ])
    .select([
      jsonArrayFrom(pageProductsQuery(db, accountId, id, productIds)).as('products'),
      jsonArrayFrom(planRowsQuery(db, accountId, { kind: 'checkout_page', pageId: id })).as('plans'),
      jsonObjectFrom(companyGatewayQuery(db, accountId, sql<number>`page.company_id`, sql<string>`page.gateway`)).as(
        'page_gateway',
      ),
    ])
    .where('page.id', '=', id)
    .where('page.deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findPayCart(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('carts as c')
    .innerJoin('cart_pages as cp', (join) =>
      join.onRef('cp.id', '=', 'c.cart_page_id').onRef('cp.account_id', '=', 'c.account_id'),
    )
    .select([
      'c.id',
      'c.account_id',
      'c.company_id',
      'c.cart_page_id',
      'c.freight_cents',
      'c.total_override_cents',
      'c.customer',
      'c.meta',
      'cp.gateway',
      'cp.enable_two_cards',
      'cp.require_scheduling',
      'cp.redirect_url',
      'cp.currency',
    ])
    .where('c.id', '=', id)
    .executeTakeFirst();
}

export function listCartLines(db: Kysely<DB>, accountId: string, cartId: string) {
  return db
    .selectFrom('cart_items as ci')
    .leftJoin('products as p', (join) =>
      join.onRef('p.id', '=', 'ci.product_id').onRef('p.account_id', '=', 'ci.account_id'),
    )
    .select([
      'ci.product_id',
      'ci.name',
      'ci.quantity',
      'ci.unit_value_cents',
      'ci.total_cents',
      'p.unit_name',
      'p.subscription',
      'p.interval',
      'p.interval_count',
    ])
    .where('ci.account_id', '=', accountId)
    .where('ci.cart_id', '=', cartId)
    .orderBy('ci.position')
    .orderBy('ci.id')
    .execute();
}

export function findPayCharge(db: Kysely<DB>, uid: string) {
  return db
    .selectFrom('orders as o')
    .leftJoin('checkout_pages as p', 'p.id', 'o.checkout_page_id')
    .leftJoin('cart_pages as cp', 'cp.id', 'o.cart_page_id')
    .innerJoin('companies as c', 'c.id', 'o.company_id')
    .select([
      'o.id',
      'o.uid',
      'o.account_id',
      'o.company_id',
      'o.customer_id',
      'o.status',
      'o.total_cents',
      'o.due_date',
      'p.gateway as page_gateway',
      'cp.gateway as cart_page_gateway',
      // The rule ChargeShow.enable_two_cards shows (chargeBranding): the company's setting, or the page's.
      sql<boolean>`c.enable_two_cards OR coalesce(p.enable_two_cards, cp.enable_two_cards, false)`.as(
        'enable_two_cards',
      ),
    ])
    .where('o.uid', '=', uid)
    .where('o.due_date', 'is not', null)
    .executeTakeFirst();
}

/** The account's live products among `ids`, with what an order item and a subscription need. */

export function findOrderItems(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('order_items')
    .select([
      'product_id',
      'product_name',
      'unit_name',
      'quantity',
      'unit_value_cents',
      'total_cents',
      'subscription',
      'interval',
      'cycle',
    ])
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

export type PayCompany = {
  id: number;
  name: string;
  time_zone: string;
  pix_expiration_minutes: number;
  boleto_due_days: number;
};

export function findPayCompany(db: Kysely<DB>, accountId: string, companyId: number): Promise<PayCompany> {
  return db
    .selectFrom('companies')
    .select(['id', 'name', 'time_zone', 'pix_expiration_minutes', 'boleto_due_days'])
    .where('account_id', '=', accountId)
    .where('id', '=', companyId)
    .executeTakeFirstOrThrow();
}

export function findCompanyGateway(db: Kysely<DB>, accountId: string, companyId: number, gateway: string) {
  return companyGatewayQuery(db, accountId, companyId, gateway).executeTakeFirst();
}

export type CompanyGatewayRow = NonNullable<Awaited<ReturnType<typeof findCompanyGateway>>>;

/** The company's enabled account at one gateway; the arguments are values, or references when embedded in a larger read. */
function companyGatewayQuery(
  db: Kysely<DB>,
  accountId: string | Expression<string>,
  companyId: number | Expression<number>,
  gateway: string | Expression<string>,
) {
  return db
    .selectFrom('company_gateways')
    .select(['gateway', 'public_key', 'secret_encrypted'])
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('gateway', '=', gateway)
    .where('enabled', '=', true);
}

/** The company's first enabled card gateway, in the order gateway_a, gateway_b, gateway_c. */
export async function firstCardGateway(
  db: Kysely<DB>,
  accountId: string,
  companyId: number,
): Promise<string | undefined> {
  const rows = await db
    .selectFrom('company_gateways')
    .select('gateway')
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('enabled', '=', true)
    .where('gateway', 'in', ['gateway_a', 'gateway_b', 'gateway_c'])
    .orderBy('gateway')
    .execute();
  return rows[0]?.gateway;
}

export function findCustomerById(db: Kysely<DB>, accountId: string, companyId: number, id: number) {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The name and document a customer already has, by the email a payment upserts it with. */
export function findCustomerIdentityByEmail(
  db: Kysely<DB>,
  scope: { accountId: string; companyId: number },
  email: string,
) {
  return db
    .selectFrom('customers')
    .select(['name', 'identification'])
    .where('account_id', '=', scope.accountId)
    .where('company_id', '=', scope.companyId)
    .where('email', '=', email)
    .executeTakeFirst();
}

export function findSavedMethod(db: Kysely<DB>, accountId: string, customerId: number, id: string) {
  return db
    .selectFrom('saved_payment_methods')
    .select(['id', 'gateway', 'gateway_reference_encrypted'])
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** A live saved card of the company's customer named by id or (before the intent upserts it) by e-mail. */
export function findCustomerSavedMethod(
  db: Kysely<DB>,
  scope: { accountId: string; companyId: number },
  customer: { id: number } | { email: string },
  id: string,
) {
  return db
    .selectFrom('saved_payment_methods as m')
    .innerJoin('customers as c', (join) =>
      join.onRef('c.id', '=', 'm.customer_id').onRef('c.account_id', '=', 'm.account_id'),
    )
    .select(['m.id', 'm.gateway', 'm.gateway_reference_encrypted'])
    .where('m.account_id', '=', scope.accountId)
    .where('c.company_id', '=', scope.companyId)
    .where('id' in customer ? 'c.id' : 'c.email', '=', 'id' in customer ? customer.id : customer.email)
    .where('m.id', '=', id)
    .where('m.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function insertPaymentRow(db: Kysely<DB>, values: Insertable<Payments>): Promise<number> {
  return (await db.insertInto('payments').values(values).returning('id').executeTakeFirstOrThrow()).id;
}

export function findPaymentsOfOrder(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

export function findPaymentByGatewayId(db: Kysely<DB>, gateway: string, gatewayId: string, accountId?: string) {
  let query = db.selectFrom('payments').selectAll().where('gateway', '=', gateway).where('gateway_id', '=', gatewayId);
  if (accountId) query = query.where('account_id', '=', accountId);
  return query.executeTakeFirst();
}

/** A payment of `gateway` by our uid that has no gateway id yet (its charge call got no answer). */
export function findUnansweredPayment(db: Kysely<DB>, gateway: string, uid: string, accountId?: string) {
  let query = db
    .selectFrom('payments')
    .selectAll()
    .where('gateway', '=', gateway)
    .where('uid', '=', uid)
    .where('gateway_id', 'is', null);
  if (accountId) query = query.where('account_id', '=', accountId);
  return query.executeTakeFirst();
}

/**
 * Records the gateway id of a payment that had none, with a `payment.reconciled` event saying how it was
 * learnt; a no-op when another path recorded it first. Returns whether this call set it.
 */
export async function adoptGatewayId(
  db: Kysely<DB>,
  payment: { account_id: string; id: number; order_id: number },
  found: { gatewayId: string; how: string; data: Record<string, unknown> },
  at: Date,
): Promise<boolean> {
  const rows = await db
    .updateTable('payments')
    .set({ gateway_id: found.gatewayId, updated_at: at })
    .where('account_id', '=', payment.account_id)
    .where('id', '=', payment.id)
    .where('gateway_id', 'is', null)
    .returning('id')
    .execute();
  if (rows.length === 0) return false;
  await appendOrderEvent(db, {
    accountId: payment.account_id,
    orderId: payment.order_id,
    paymentId: payment.id,
    type: 'payment.reconciled',
    cause: found.how,
    data: { gateway_id: found.gatewayId, ...found.data },
    at,
  });
  return true;
}

export function findOrderRow(db: Kysely<DB>, accountId: string, orderId: number) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', orderId)
    .executeTakeFirstOrThrow();
}

/** The pay flow's answer in one read: these payments of the order (by id), each with the order's status. */
export function findPaymentsWithOrderStatus(db: Kysely<DB>, accountId: string, orderId: number, paymentIds: number[]) {
  return db
    .selectFrom('payments')
    .innerJoin('orders', (join) =>
      join.onRef('orders.id', '=', 'payments.order_id').onRef('orders.account_id', '=', 'payments.account_id'),
    )
    .select([
      'orders.status as order_status',
      'payments.id',
      'payments.uid',
      'payments.gateway_id',
      'payments.status',
      'payments.method',
      'payments.amount_cents',
      'payments.installments',
    ])
    .where('payments.account_id', '=', accountId)
    .where('payments.order_id', '=', orderId)
    .where('payments.id', 'in', paymentIds)
    .orderBy('payments.id')
    .execute();
}

/**
 * The status of an order of the cart whose purchase is made (paid, invoiced or given back), other than
 * `exceptOrderId`; undefined when the cart is still to be bought. `lock` first locks the cart row, so two
 * orders of one cart settling at the same moment decide one after the other (the second sees the first).
 */
export async function purchasedOrderOfCart(
  db: Kysely<DB>,
  accountId: string,
  cartId: string,
  options: { exceptOrderId?: number; lock?: boolean } = {},
): Promise<string | undefined> {
  if (options.lock)
    await db
      .selectFrom('carts')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '=', cartId)
      .forUpdate()
      .execute();
  let query = db
    .selectFrom('orders')
    .select('status')
    .where('account_id', '=', accountId)
    .where('cart_id', '=', cartId)
    .where('status', 'in', PURCHASED_STATUSES);
  if (options.exceptOrderId !== undefined) query = query.where('id', '<>', options.exceptOrderId);
  return (await query.executeTakeFirst())?.status;
}
