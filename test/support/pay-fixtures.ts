/** Shared fixtures of the pay-flow tests: an app wired to in-process gateway sandboxes, a merchant, tokens. */

import { constants, publicEncrypt, randomUUID } from 'node:crypto';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import type { GatewayName } from '../../src/gateways/port.ts';
import { createGateway } from '../../src/gateways/registry.ts';
import {
  type RunningSandboxes,
  sandboxGatewayUrls,
  startSandboxes,
  type WebhookTargets,
} from '../../src/gateways/sandbox/server.ts';
import { containsCardNumber } from '../../src/lib/card-numbers.ts';
import { seal } from '../../src/lib/crypto.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { usePayGatewayClients } from '../../src/modules/payments/attempts/pay-gateways.ts';
import { todayInTimeZone } from '../../src/modules/pricing/overdue.ts';
import { createTenant, testConfig, type Tenant } from './app.ts';
import type { EngineCase } from './engines.ts';

export const ORIGIN = { origin: 'https://shop.example' };
export const CARDS = {
  approved: '4111111111111111',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  gatewayError: '4000000000000119',
  gatewayTimeout: '4000000000000259',
} as const;

export const KEYS: Record<GatewayName, { publicKey: string; secretKey: string }> = {
  gateway_a: { publicKey: 'pk_test_pay_a', secretKey: 'sk_test_pay_a' },
  gateway_b: { publicKey: 'pk_test_pay_b', secretKey: 'sk_test_pay_b' },
  gateway_c: { publicKey: 'ek_test_pay_c', secretKey: 'ak_test_pay_c' },
};

/** Where the sandboxes answer: in this process (RunningSandboxes) or a standalone `checkout sandbox`. */
export type SandboxUrls = Pick<RunningSandboxes, 'baseUrlFor'>;

export type PayApp = {
  app: FastifyInstance;
  config: Config;
  sandboxes: RunningSandboxes;
  setNow(now: Date | undefined): void;
  close(): Promise<void>;
};

/**
 * The app with sandboxes on port 0 (charge calls held 2 s) and gateway clients that give up after 1 s. The
 * sandboxes deliver no webhooks unless `webhookTargets` says where.
 */
export async function startPayApp(
  database: Database,
  options: { webhookTargets?: WebhookTargets } = {},
): Promise<PayApp> {
  const sandboxes = await startSandboxes({
    port: 0,
    webhookTargets: options.webhookTargets ?? (() => undefined),
    holdMs: 2000,
  });
  const config = testConfig();
  let fixed: Date | undefined;
  const app = await buildApp({
    config,
    database,
    logger: createLogger('silent'),
    clock: () => fixed ?? new Date(),
    gatewayUrls: sandboxGatewayUrls(sandboxes),
  });
  await app.ready();
  const clients = new Map<GatewayName, ReturnType<typeof createGateway>>();
  const shortTimeoutClients = (name: GatewayName) =>
    clients.get(name) ?? clients.set(name, createGateway(name, { timeoutMs: 1000 })).get(name)!;
  const previousClients = usePayGatewayClients(shortTimeoutClients);
  return {
    app,
    config,
    sandboxes,
    setNow: (now) => (fixed = now),
    close: async () => {
      // Test files may share a process: the clients before this app come back, unless a later app replaced them.
      const current = usePayGatewayClients(previousClients);
      if (current !== shortTimeoutClients) usePayGatewayClients(current);
      await app.close();
      await sandboxes.close();
    },
  };
}

export type Merchant = Tenant & {
  productId: number;
  subscriptionProductId: number;
  upsellProductId: number;
  cardPlanId: number;
  pixPlanId: number;
  boletoPlanId: number;
  pageId: string;
};

type Db = Database['db'];

export async function insertProduct(
  db: Db,
  tenant: Tenant,
  valueCents: number,
  extra: { subscription?: boolean; interval?: string; name?: string } = {},
): Promise<number> {
  const row = await db
    .insertInto('products')
    .values({
      uid: randomUUID(),
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      name: extra.name ?? `Product ${valueCents}`,
      value_cents: valueCents,
      subscription: extra.subscription ?? false,
      interval: extra.interval ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function insertPlan(
  db: Db,
  tenant: Tenant,
  method: string,
  options: {
    maxInstallments?: number;
    taxes?: Array<{ installments: number; percentage?: number; fixedCents?: number }>;
  } = {},
): Promise<number> {
  const row = await db
    .insertInto('payment_plans')
    .values({
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      name: method,
      payment_method: method,
      max_installments: options.maxInstallments ?? 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const tax of options.taxes ?? []) {
    await db
      .insertInto('payment_plan_taxes')
      .values({
        account_id: tenant.accountId,
        payment_plan_id: row.id,
        installments: tax.installments,
        percentage: tax.percentage ?? 0,
        fixed_cents: tax.fixedCents ?? 0,
      })
      .execute();
  }
  return row.id;
}

export type PageOptions = {
  gateway?: GatewayName;
  products?: number[];
  plans?: number[];
  upsellProductId?: number;
  redirectUrl?: string;
  enableTwoCards?: boolean;
  requireScheduling?: boolean;
  enableCoupons?: boolean;
};

export async function insertPage(db: Db, tenant: Tenant, options: PageOptions): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('checkout_pages')
    .values({
      id,
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      page_title: 'Pay page',
      gateway: options.gateway ?? 'gateway_a',
      upsell_product_id: options.upsellProductId ?? null,
      redirect_url: options.redirectUrl ?? null,
      enable_two_cards: options.enableTwoCards ?? false,
      require_scheduling: options.requireScheduling ?? false,
      enable_coupons: options.enableCoupons ?? true,
    })
    .execute();
  for (const productId of options.products ?? []) {
    await db
      .insertInto('checkout_page_products')
      .values({
        account_id: tenant.accountId,
        checkout_page_id: id,
        product_id: productId,
        allow_quantity: true,
        max_quantity: 10,
      })
      .execute();
  }
  for (const planId of options.plans ?? []) {
    await db
      .insertInto('checkout_page_payment_plans')
      .values({ account_id: tenant.accountId, checkout_page_id: id, payment_plan_id: planId })
      .execute();
  }
  return id;
}

/** A merchant with the three gateways configured (secrets sealed), products, card (12x, 2.5% from 2x), pix and boleto plans and a page. */
export async function createMerchant(
  database: Database,
  config: Config,
  allowedHosts = ['shop.example'],
): Promise<Merchant> {
  const db = database.db;
  const tenant = await createTenant(database, { allowedHosts });
  for (const gateway of ['gateway_a', 'gateway_b', 'gateway_c'] as const) {
    await db
      .insertInto('company_gateways')
      .values({
        account_id: tenant.accountId,
        company_id: tenant.companyId,
        gateway,
        public_key: KEYS[gateway].publicKey,
        secret_encrypted: seal(config.masterKey, KEYS[gateway].secretKey),
      })
      .execute();
  }
  const productId = await insertProduct(db, tenant, 10_000, { name: 'Curso' });
  const subscriptionProductId = await insertProduct(db, tenant, 4_990, {
    subscription: true,
    interval: 'month',
    name: 'Clube',
  });
  const upsellProductId = await insertProduct(db, tenant, 1_990, { name: 'Bônus' });
  const cardPlanId = await insertPlan(db, tenant, 'credit_card', {
    maxInstallments: 12,
    taxes: [2, 3, 4, 5, 6].map((installments) => ({ installments, percentage: 2.5 })),
  });
  const pixPlanId = await insertPlan(db, tenant, 'pix');
  const boletoPlanId = await insertPlan(db, tenant, 'bank_slip');
  const pageId = await insertPage(db, tenant, {
    products: [productId, subscriptionProductId],
    plans: [cardPlanId, pixPlanId, boletoPlanId],
  });
  return { ...tenant, productId, subscriptionProductId, upsellProductId, cardPlanId, pixPlanId, boletoPlanId, pageId };
}

/** A gateway_a card token from the sandbox's browser tokenizer (publishable key). */
export async function tokenA(sandboxes: SandboxUrls, number: string = CARDS.approved): Promise<string> {
  return untilAccepted(() => rawTokenA(sandboxes, number));
}

/**
 * Random tokens now and then hold a digit run that passes the raw-card-number check and would be refused
 * with 422 `card_number_refused` (a known limitation of that check); tests take another token then.
 */
async function untilAccepted(make: () => Promise<string>): Promise<string> {
  for (;;) {
    const token = await make();
    if (!containsCardNumber({ token })) return token;
  }
}

async function rawTokenA(sandboxes: SandboxUrls, number: string): Promise<string> {
  const response = await fetch(`${sandboxes.baseUrlFor('gateway_a')}/tokens?appId=${KEYS.gateway_a.publicKey}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'card',
      card: { number, holder_name: 'MARIA DA SILVA', exp_month: 12, exp_year: 2031, cvv: '123' },
    }),
  });
  if (response.status !== 200) throw new Error(`tokenizer answered ${response.status}`);
  return ((await response.json()) as { id: string }).id;
}

/** A gateway_b confirmation token, made with the publishable key as a browser would. */
export async function confirmationTokenB(sandboxes: SandboxUrls, number: string = CARDS.approved): Promise<string> {
  return untilAccepted(() => rawConfirmationTokenB(sandboxes, number));
}

async function rawConfirmationTokenB(sandboxes: SandboxUrls, number: string): Promise<string> {
  const form = new URLSearchParams({
    'payment_method_data[type]': 'card',
    'payment_method_data[card][number]': number,
    'payment_method_data[card][exp_month]': '12',
    'payment_method_data[card][exp_year]': '2031',
    'payment_method_data[card][cvc]': '123',
    'payment_method_data[billing_details][name]': 'Maria da Silva',
  });
  const response = await fetch(`${sandboxes.baseUrlFor('gateway_b')}/v1/confirmation_tokens`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${KEYS.gateway_b.publicKey}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: form,
  });
  if (response.status !== 200) throw new Error(`confirmation tokens answered ${response.status}`);
  return ((await response.json()) as { id: string }).id;
}

/**
 * A gateway_c card hash: a key from the sandbox (recorded for the company, as the card-hash-key endpoint
 * does), then the card encrypted with node:crypto publicEncrypt (PKCS#1 v1.5) as the browser library would.
 */
export async function cardHashC(
  database: Database,
  sandboxes: SandboxUrls,
  tenant: Tenant,
  number: string = CARDS.approved,
): Promise<string> {
  return untilAccepted(() => rawCardHashC(database, sandboxes, tenant, number));
}

async function rawCardHashC(
  database: Database,
  sandboxes: SandboxUrls,
  tenant: Tenant,
  number: string,
): Promise<string> {
  const response = await fetch(`${sandboxes.baseUrlFor('gateway_c')}/card_hash_keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ encryption_key: KEYS.gateway_c.publicKey }),
  });
  const key = (await response.json()) as { id: number; public_key: string; date_created: string };
  const created = new Date(key.date_created);
  await database.db
    .insertInto('card_hash_keys')
    .values({
      account_id: tenant.accountId,
      company_id: tenant.companyId,
      gateway_key_id: key.id,
      public_key_pem: key.public_key,
      created_at: created,
      expires_at: new Date(created.getTime() + 5 * 60_000),
    })
    .execute();
  const plaintext = `card_number=${number}&card_holder_name=${encodeURIComponent('MARIA DA SILVA')}&card_expiration_date=1231&card_cvv=123`;
  return `${key.id}_${publicEncrypt({ key: key.public_key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(plaintext)).toString('base64')}`;
}

/** A card page of the merchant on each gateway: its own page for gateway_a, a new one each for gateway_b and gateway_c. */
export async function cardPagesByGateway(database: Database, merchant: Merchant): Promise<Record<GatewayName, string>> {
  const pages = { gateway_a: merchant.pageId } as Record<GatewayName, string>;
  for (const gateway of ['gateway_b', 'gateway_c'] as const)
    pages[gateway] = await insertPage(database.db, merchant, {
      gateway,
      products: [merchant.productId],
      plans: [merchant.cardPlanId],
    });
  return pages;
}

/** The card field each gateway's client side makes for `number`: a gateway_a token, a gateway_b confirmation token, a gateway_c card hash. */
export async function cardFieldsFor(
  database: Database,
  sandboxes: SandboxUrls,
  merchant: Merchant,
  gateway: GatewayName,
  number: string = CARDS.approved,
): Promise<Record<string, string>> {
  if (gateway === 'gateway_a') return { credit_card_0_token: await tokenA(sandboxes, number) };
  if (gateway === 'gateway_b') return { confirmation_token_id: await confirmationTokenB(sandboxes, number) };
  return { credit_card_0_token: await cardHashC(database, sandboxes, merchant, number) };
}

export function orderEventsOf(database: Database, orderUid: string) {
  return database.db
    .selectFrom('order_events as e')
    .innerJoin('orders as o', 'o.id', 'e.order_id')
    .select(['e.type', 'e.from_status', 'e.to_status', 'e.cause', 'e.payment_id'])
    .where('o.uid', '=', orderUid)
    .orderBy('e.id')
    .execute();
}

export function paymentsOfOrderUid(database: Database, orderUid: string) {
  return database.db
    .selectFrom('payments as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .selectAll('p')
    .where('o.uid', '=', orderUid)
    .orderBy('p.id')
    .execute();
}

/** A cart page with the merchant's three plans and a cart of one product (R$ 100,00) plus R$ 15,00 freight. */
export async function insertCart(
  database: Database,
  merchant: Merchant,
  options: {
    gateway?: GatewayName;
    customer?: Record<string, string>;
    enableTwoCards?: boolean;
    requireScheduling?: boolean;
    /** The cart's id: random by default. */
    id?: string;
  } = {},
): Promise<string> {
  const db = database.db;
  const cartPageId = randomUUID();
  await db
    .insertInto('cart_pages')
    .values({
      id: cartPageId,
      account_id: merchant.accountId,
      company_id: merchant.companyId,
      name: 'Carrinho',
      page_title: 'Carrinho',
      gateway: options.gateway ?? 'gateway_a',
      enable_two_cards: options.enableTwoCards ?? false,
      require_scheduling: options.requireScheduling ?? false,
      enable_coupons: true,
      redirect_url: 'https://shop.example/obrigado',
    })
    .execute();
  for (const planId of [merchant.cardPlanId, merchant.pixPlanId, merchant.boletoPlanId]) {
    await db
      .insertInto('cart_page_payment_plans')
      .values({ account_id: merchant.accountId, cart_page_id: cartPageId, payment_plan_id: planId })
      .execute();
  }
  const cartId = options.id ?? randomUUID();
  await db
    .insertInto('carts')
    .values({
      id: cartId,
      account_id: merchant.accountId,
      company_id: merchant.companyId,
      cart_page_id: cartPageId,
      payment_method: 'credit_card',
      freight_cents: 1_500,
      customer: JSON.stringify(
        options.customer ?? { email: 'cart@example.com', name: 'Cart Buyer', identification: '52998224725' },
      ),
    })
    .execute();
  await db
    .insertInto('cart_items')
    .values({
      account_id: merchant.accountId,
      cart_id: cartId,
      product_id: merchant.productId,
      name: 'Curso',
      quantity: 1,
      unit_value_cents: 10_000,
      total_cents: 10_000,
    })
    .execute();
  return cartId;
}

/** A charge (an order with a due date) of R$ 100,00 for a new customer of the merchant. */
export async function insertCharge(
  database: Database,
  merchant: Merchant,
  options: { dueDate?: string; status?: string } = {},
): Promise<{ id: number; uid: string }> {
  const db = database.db;
  const customer = await db
    .insertInto('customers')
    .values({
      account_id: merchant.accountId,
      company_id: merchant.companyId,
      email: `charge-${randomUUID().slice(0, 8)}@example.com`,
      name: 'Charge Buyer',
      identification: '52998224725',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const uid = randomUUID();
  const today = new Date().toISOString().slice(0, 10);
  const order = await db
    .insertInto('orders')
    .values({
      uid,
      account_id: merchant.accountId,
      company_id: merchant.companyId,
      customer_id: customer.id,
      source: 'api',
      status: options.status ?? 'pending',
      subtotal_cents: 10_000,
      total_cents: 10_000,
      date: today,
      due_date: options.dueDate ?? today,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('order_items')
    .values({
      account_id: merchant.accountId,
      order_id: order.id,
      product_id: merchant.productId,
      product_name: 'Curso',
      quantity: 1,
      unit_value_cents: 10_000,
      total_cents: 10_000,
    })
    .execute();
  return { id: order.id, uid };
}

const DAY_MS = 86_400_000;

/** A bank-slip plan whose terms bill an overdue charge: a 2% fine, late interest of 1% a month plus R$ 0,50 once. */
export async function insertOverdueTermsPlan(database: Database, merchant: Merchant): Promise<number> {
  const planId = await insertPlan(database.db, merchant, 'bank_slip');
  await database.db
    .updateTable('payment_plans')
    .set({ fine_type: 'percentage', fine_tax: 2, late_interest_tax: 1, late_interest_cents: 50 })
    .where('id', '=', planId)
    .execute();
  return planId;
}

/** A R$ 100,00 charge due `days` from today in the company's zone (negative: past due), billed under `planId`. */
export async function insertChargeDue(
  database: Database,
  merchant: Merchant,
  planId: number,
  days: number,
): Promise<{ id: number; uid: string }> {
  const today = todayInTimeZone(new Date(), 'America/Sao_Paulo');
  const dueDate = new Date(Date.parse(`${today}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
  const charge = await insertCharge(database, merchant, { dueDate });
  await database.db.updateTable('orders').set({ payment_plan_id: planId }).where('id', '=', charge.id).execute();
  return charge;
}

export type PayMerchant = { database: Database; pay: PayApp; merchant: Merchant };

/**
 * The hooks of a suite that pays against one merchant: before, the engine's database, the pay app and the
 * merchant, handed to `ready` (which may add its own setup); after, the app and the database are closed.
 */
export function usePayMerchant(
  engine: EngineCase,
  ready: (setup: PayMerchant) => unknown,
  options: { webhookTargets?: WebhookTargets } = {},
): void {
  let setup: PayMerchant | undefined;
  before(async () => {
    const database = await engine.open();
    const pay = await startPayApp(database, options);
    setup = { database, pay, merchant: await createMerchant(database, pay.config) };
    await ready(setup);
  });
  after(async () => {
    await setup?.pay.close();
    await setup?.database.close();
  });
}

/** Pays a charge with two approved gateway_a cards of `amounts` (reais), both on the merchant's card plan in 1x. */
export async function payChargeWithTwoCards(
  pay: PayApp,
  merchant: Merchant,
  chargeUid: string,
  amounts: [number, number],
) {
  const plan = `${merchant.cardPlanId}-1`;
  return pay.app.inject({
    method: 'POST',
    url: `/api/v1/charges/${chargeUid}/pay`,
    headers: ORIGIN,
    payload: {
      payment_plan_id: plan,
      credit_card_0_token: await tokenA(pay.sandboxes),
      credit_card_0_amount: amounts[0],
      credit_card_0_payment_plan: plan,
      credit_card_1_token: await tokenA(pay.sandboxes),
      credit_card_1_amount: amounts[1],
      credit_card_1_payment_plan: plan,
    },
  });
}

/** The payer's identity a boleto needs (name and a CPF with valid check digits), as pay bodies send it. */
export const BOLETO_PAYER = { customer_name: 'Maria da Silva', customer_identification: '529.982.247-25' };
