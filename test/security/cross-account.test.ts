import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { signatureHeader } from '../../src/gateways/gateway-b/index.ts';
import { createEndpoint } from '../../src/modules/notifications/endpoints.service.ts';
import { signOfferToken } from '../../src/modules/payments/settlement/upsell-offer-token.ts';
import { bearer } from '../support/app.ts';
import { publicTables, snapshot, type Snapshot } from '../support/db-snapshot.ts';
import { engines } from '../support/engines.ts';
import { startPayApp, type PayApp } from '../support/pay-fixtures.ts';
import { basic, runWebhookJobs } from '../support/webhooks-fixtures.ts';
import { stockTwoTenants, type StockedTenant } from './two-tenants.ts';

/**
 * Every resource and receiver, attacked by the other account: its API key, its allowed origin, its webhook
 * credentials. Each row names the record of the victim (alpha) that the attacker (beta) reaches for.
 * Reads have a control: the victim's own credentials get the record, so the refusal is about the account.
 */
type Credentials = Record<string, string>;
type Attempt = {
  route: string;
  /** The request the attacker sends with `as` (its key or origin). */
  request: (victim: StockedTenant, as: Credentials, attacker: StockedTenant) => InjectOptions;
  /** Which of the attacker's credentials to try: its key, its allowed origin, or both. */
  with: Array<'key' | 'origin'>;
  status: number;
  /** What the refusal must say, where a 404 or 422 could have another cause. */
  reason?: RegExp;
  /** For reads: the same request with the victim's credentials succeeds. */
  control?: 'key' | 'origin';
};

const api = (path: string) => `/api/v1${path}`;
/** The victim's notification endpoint and one of its deliveries, set up by `before` (the tenants fixture has none). */
const victimNotifications = { endpointId: '', deliveryId: '' };
const endpointPath = (suffix = '') => api(`/notification_endpoints/${victimNotifications.endpointId}${suffix}`);
/** inject sends an object as application/json. */
const json = (payload: object) => ({ payload });

const ATTEMPTS: Attempt[] = [
  // Catalog
  {
    route: 'GET /products/{id}',
    request: (v, as) => ({ url: api(`/products/${v.productId}`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
    control: 'origin',
  },
  {
    route: 'GET /products/{id}/gateway_a_public_key',
    request: (v, as) => ({ url: api(`/products/${v.productId}/gateway_a_public_key`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
    control: 'origin',
  },
  {
    route: 'POST /products (company_id of the victim)',
    request: (v, as) => ({
      method: 'POST',
      url: api('/products'),
      headers: as,
      ...json({ name: 'Intruder', value: 1, company_id: v.companyId }),
    }),
    with: ['key'],
    status: 422,
    reason: /company/,
  },
  {
    route: 'GET /checkout_pages/{id}',
    request: (v, as) => ({ url: api(`/checkout_pages/${v.pageId}`), headers: as }),
    with: ['key'],
    status: 404,
    reason: /Checkout page not found/,
    control: 'key',
  },
  {
    route: 'GET /checkout_pages/{id}/payments',
    request: (v, as) => ({ url: api(`/checkout_pages/${v.pageId}/payments`), headers: as }),
    with: ['key'],
    status: 404,
    reason: /Checkout page not found/,
  },
  // Customers and orders
  {
    route: 'POST /customers (checkout_page_id of the victim)',
    request: (v, as) => ({
      method: 'POST',
      url: api('/customers'),
      headers: as,
      ...json({ email: v.customerEmail, name: 'Hijack', phone: '11999999999', checkout_page_id: v.pageId }),
    }),
    with: ['key', 'origin'],
    status: 403,
  },
  {
    route: 'GET /orders/{id}',
    request: (v, as) => ({ url: api(`/orders/${v.charge.id}`), headers: as }),
    with: ['key'],
    status: 404,
    reason: /Order not found/,
    control: 'key',
  },
  {
    route: 'POST /orders (the victim’s product)',
    request: (v, as) => ({
      method: 'POST',
      url: api('/orders'),
      headers: as,
      ...json({ customer: { email: 'x@example.com' }, items: [{ product_id: v.productId }] }),
    }),
    with: ['key'],
    status: 422,
    reason: /unknown product/,
  },
  {
    route: 'POST /orders (the victim’s payment plan)',
    request: (v, as, a) => ({
      method: 'POST',
      url: api('/orders'),
      headers: as,
      ...json({
        customer: { email: 'x@example.com' },
        main_product_id: a.productId,
        payments: [{ gateway: 'gateway_a', amount: 100, payment_plan_id: v.pixPlanId }],
      }),
    }),
    with: ['key'],
    status: 422,
    reason: /plan/,
  },
  // Carts and charges
  {
    route: 'POST /carts/{cart page id}',
    request: (v, as) => ({
      method: 'POST',
      url: api(`/carts/${v.cartPageId}`),
      headers: as,
      ...json({ payment_method: 'pix' }),
    }),
    with: ['key'],
    status: 404,
    reason: /Cart page not found/,
  },
  {
    route: 'GET /carts/{id}',
    request: (v, as) => ({ url: api(`/carts/${v.cartId}`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
    control: 'origin',
  },
  {
    route: 'GET /carts/{id}/payments',
    request: (v, as) => ({ url: api(`/carts/${v.cartId}/payments`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
  },
  {
    route: 'GET /charges/{id}',
    request: (v, as) => ({ url: api(`/charges/${v.charge.uid}`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
    control: 'origin',
  },
  {
    route: 'GET /charges/{id}/last_payment',
    request: (v, as) => ({ url: api(`/charges/${v.charge.uid}/last_payment`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
    control: 'origin',
  },
  // Paying
  {
    route: 'POST /payments (the victim’s page)',
    request: (v, as) => ({
      method: 'POST',
      url: api('/payments'),
      headers: as,
      ...json({
        checkout_page_id: v.pageId,
        payment_plan_id: `${v.pixPlanId}-1`,
        products: [{ id: v.productId, quantity: 1 }],
        customer_email: 'x@example.com',
      }),
    }),
    with: ['key', 'origin'],
    status: 403,
  },
  {
    route: 'POST /payments (the victim’s customer_id on the attacker’s page)',
    request: (v, as, a) => ({
      method: 'POST',
      url: api('/payments'),
      headers: as,
      ...json({
        checkout_page_id: a.pageId,
        payment_plan_id: `${a.pixPlanId}-1`,
        products: [{ id: a.productId, quantity: 1 }],
        customer_id: v.customerId,
      }),
    }),
    with: ['key', 'origin'],
    status: 422,
    reason: /unknown customer/,
  },
  {
    route: 'POST /payments (the victim’s product on the attacker’s page)',
    request: (v, as, a) => ({
      method: 'POST',
      url: api('/payments'),
      headers: as,
      ...json({
        checkout_page_id: a.pageId,
        payment_plan_id: `${a.pixPlanId}-1`,
        products: [{ id: v.productId, quantity: 1 }],
        customer_email: 'x@example.com',
      }),
    }),
    with: ['key', 'origin'],
    status: 422,
    reason: /not a product of this checkout page/,
  },
  {
    route: 'POST /payments (the victim’s payment plan on the attacker’s page)',
    request: (v, as, a) => ({
      method: 'POST',
      url: api('/payments'),
      headers: as,
      ...json({
        checkout_page_id: a.pageId,
        payment_plan_id: `${v.pixPlanId}-1`,
        products: [{ id: a.productId, quantity: 1 }],
        customer_email: 'x@example.com',
      }),
    }),
    with: ['key', 'origin'],
    status: 422,
    reason: /plan/,
  },
  {
    route: 'POST /carts/{id}/pay',
    request: (v, as) => ({
      method: 'POST',
      url: api(`/carts/${v.cartId}/pay`),
      headers: as,
      ...json({ payment_plan_id: `${v.pixPlanId}-1` }),
    }),
    with: ['key', 'origin'],
    status: 403,
  },
  {
    route: 'POST /charges/{id}/pay',
    request: (v, as) => ({
      method: 'POST',
      url: api(`/charges/${v.charge.uid}/pay`),
      headers: as,
      ...json({ payment_plan_id: `${v.pixPlanId}-1` }),
    }),
    with: ['key', 'origin'],
    status: 403,
  },
  {
    route: 'POST /payments/{id}/refund',
    request: (v, as) => ({
      method: 'POST',
      url: api(`/payments/${v.paymentId}/refund`),
      headers: as,
      ...json({ amount: 1 }),
    }),
    with: ['key'],
    status: 404,
    reason: /Payment not found/,
  },
  // Pricing
  {
    route: 'GET /payment_plans (checkout page)',
    request: (v, as) => ({
      url: api(`/payment_plans?checkout_page_id=${v.pageId}&products[${v.productId}]=1`),
      headers: as,
    }),
    with: ['key', 'origin'],
    status: 403,
    control: 'origin',
  },
  {
    route: 'GET /payment_plans (charge)',
    request: (v, as) => ({ url: api(`/payment_plans?charge_id=${v.charge.uid}`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
    control: 'origin',
  },
  {
    route: 'GET /payment_plans (cart)',
    request: (v, as) => ({ url: api(`/payment_plans?cart_id=${v.cartId}`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
    control: 'origin',
  },
  {
    route: 'GET /payment_plans (cart page)',
    request: (v, as) => ({ url: api(`/payment_plans?cart_page_id=${v.cartPageId}&amount=10`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
    control: 'origin',
  },
  {
    route: 'GET /coupons/{code}/validate',
    request: (v, as) => ({ url: api(`/coupons/${v.couponCode}/validate?product_id=${v.productId}`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
    control: 'origin',
  },
  {
    route: 'GET /coupons/{code}/validate (the attacker’s product)',
    request: (v, as, a) => ({ url: api(`/coupons/${v.couponCode}/validate?product_id=${a.productId}`), headers: as }),
    with: ['key', 'origin'],
    status: 422,
    reason: /Coupon not found/,
  },
  // Card hash keys (gateway_c): refused before any gateway call
  {
    route: 'GET /checkout_pages/{id}/card_hash_key',
    request: (v, as) => ({ url: api(`/checkout_pages/${v.pageId}/card_hash_key`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
  },
  {
    route: 'GET /carts/{id}/card_hash_key',
    request: (v, as) => ({ url: api(`/carts/${v.cartId}/card_hash_key`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
  },
  {
    route: 'GET /charges/{id}/card_hash_key',
    request: (v, as) => ({ url: api(`/charges/${v.charge.uid}/card_hash_key`), headers: as }),
    with: ['key', 'origin'],
    status: 403,
  },
  // Notification endpoints and deliveries
  {
    route: 'GET /notification_endpoints/{id}',
    request: (_v, as) => ({ url: endpointPath(), headers: as }),
    with: ['key'],
    status: 404,
    reason: /Notification endpoint not found/,
    control: 'key',
  },
  {
    route: 'PATCH /notification_endpoints/{id}',
    request: (_v, as) => ({
      method: 'PATCH',
      url: endpointPath(),
      headers: as,
      ...json({ url: 'https://attacker.example/hooks', enabled: true }),
    }),
    with: ['key'],
    status: 404,
    reason: /Notification endpoint not found/,
  },
  {
    route: 'DELETE /notification_endpoints/{id}',
    request: (_v, as) => ({ method: 'DELETE', url: endpointPath(), headers: as }),
    with: ['key'],
    status: 404,
    reason: /Notification endpoint not found/,
  },
  {
    route: 'POST /notification_endpoints/{id}/rotate_secret',
    request: (_v, as) => ({
      method: 'POST',
      url: endpointPath('/rotate_secret'),
      headers: as,
      ...json({ grace_seconds: 0 }),
    }),
    with: ['key'],
    status: 404,
    reason: /Notification endpoint not found/,
  },
  {
    route: 'GET /notification_endpoints/{id}/deliveries',
    request: (_v, as) => ({ url: endpointPath('/deliveries'), headers: as }),
    with: ['key'],
    status: 404,
    reason: /Notification endpoint not found/,
    control: 'key',
  },
  {
    route: 'POST /notification_deliveries/{id}/redeliver',
    request: (_v, as) => ({
      method: 'POST',
      url: api(`/notification_deliveries/${victimNotifications.deliveryId}/redeliver`),
      headers: as,
      ...json({}),
    }),
    with: ['key'],
    status: 404,
    reason: /Notification delivery not found/,
  },
];

/** Receivers, with the attacker's own valid credentials aimed at the victim's company. */
type WebhookAttempt = {
  route: string;
  request: (victim: StockedTenant, attacker: StockedTenant) => InjectOptions;
  status: number;
  code: string;
};

const WEBHOOK_ATTEMPTS: WebhookAttempt[] = [
  {
    route: 'POST /webhooks (company_id of the victim, the attacker’s Basic credentials)',
    request: (v, a) => ({
      method: 'POST',
      url: api('/webhooks'),
      headers: basic(a.credentials.gatewayA.username, a.credentials.gatewayA.password),
      ...json({
        id: 'evt_cross_a',
        type: 'charge.paid',
        data: { id: v.paymentUid, metadata: { company_id: String(v.companyId) } },
      }),
    }),
    status: 401,
    code: 'invalid_credentials',
  },
  {
    route: 'POST /webhooks/{victim company}/bank (the attacker’s Basic credentials)',
    request: (v, a) => ({
      method: 'POST',
      url: api(`/webhooks/${v.companyId}/bank`),
      headers: basic(a.credentials.bank.username, a.credentials.bank.password),
      ...json({
        id: 'evt_cross_bank',
        type: 'pix.received',
        data: { gateway_id: `ch_${v.slug}`, amount: 10_000, paid_at: new Date().toISOString() },
      }),
    }),
    status: 401,
    code: 'invalid_credentials',
  },
  {
    route: 'POST /webhooks/{victim company}/gateway_b (signed with the attacker’s secret)',
    request: (v, a) => {
      const body = JSON.stringify({
        id: 'evt_cross_b',
        object: 'event',
        type: 'charge.succeeded',
        created: 1,
        data: { object: { id: `ch_${v.slug}`, object: 'charge' } },
      });
      return {
        method: 'POST',
        url: api(`/webhooks/${v.companyId}/gateway_b`),
        headers: {
          'content-type': 'application/json',
          'gateway-b-signature': signatureHeader(a.credentials.gatewayB, body, Math.floor(Date.now() / 1000)),
        },
        payload: body,
      };
    },
    status: 401,
    code: 'invalid_signature',
  },
];

/** An endpoint of the victim with a failed delivery, written directly so no order of the fixture moves. */
async function victimNotificationRecords(database: Database, masterKey: Buffer, victim: StockedTenant) {
  const { endpoint } = await createEndpoint(
    database.db,
    masterKey,
    { accountId: victim.accountId, url: 'https://victim.example/hooks' },
    new Date(),
  );
  const eventId = `evt_${randomBytes(12).toString('hex')}`;
  const deliveryId = `dlv_${randomBytes(12).toString('hex')}`;
  await database.db
    .insertInto('notification_events')
    .values({ id: eventId, account_id: victim.accountId, type: 'order.paid', order_id: victim.charge.id, data: '{}' })
    .execute();
  await database.db
    .insertInto('notification_deliveries')
    .values({
      id: deliveryId,
      account_id: victim.accountId,
      event_id: eventId,
      endpoint_id: endpoint.id,
      status: 'failed',
      attempts: 15,
      max_attempts: 15,
      last_error: 'HTTP 500',
      failed_at: new Date(),
    })
    .execute();
  return { endpointId: endpoint.id, deliveryId };
}

for (const engine of engines()) {
  describe(`cross-account attempts on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let payApp: PayApp;
    let alpha: StockedTenant;
    let beta: StockedTenant;
    let tables: string[];
    let untouched: Snapshot;
    const credentialsOf = (tenant: StockedTenant, kind: 'key' | 'origin') =>
      kind === 'key' ? bearer(tenant.apiKey) : tenant.origin;

    before(async () => {
      database = await engine.open();
      // Gateways are reachable, so a refusal is never a gateway outage in disguise.
      payApp = await startPayApp(database);
      app = payApp.app;
      ({ alpha, beta } = await stockTwoTenants(database, payApp.config));
      Object.assign(victimNotifications, await victimNotificationRecords(database, payApp.config.masterKey, alpha));
      // The victim's key records its first use (hourly resolution): done before the snapshot.
      assert.equal((await app.inject({ url: api('/products'), headers: bearer(alpha.apiKey) })).statusCode, 200);
      tables = await publicTables(database, { withColumn: 'account_id' });
      untouched = await snapshot(database, tables, alpha.accountId);
    });
    after(async () => {
      await payApp.close();
      await database.close();
    });

    for (const attempt of ATTEMPTS) {
      test(`${attempt.route}: ${attempt.status} for the other account’s ${attempt.with.join(' and ')}`, async () => {
        for (const kind of attempt.with) {
          const res = await app.inject(attempt.request(alpha, credentialsOf(beta, kind), beta));
          assert.equal(res.statusCode, attempt.status, `${kind}: ${res.body}`);
          if (attempt.reason) assert.match(res.body, attempt.reason, kind);
          for (const secret of [alpha.customerEmail, alpha.accountId, alpha.charge.uid, alpha.paymentUid])
            assert.ok(!res.body.includes(secret), `${kind}: the answer shows ${secret}`);
        }
        if (attempt.control) {
          const own = await app.inject(attempt.request(alpha, credentialsOf(alpha, attempt.control), alpha));
          assert.equal(own.statusCode, 200, `control with the victim’s own ${attempt.control}: ${own.body}`);
        }
      });
    }

    test('lists and filters show the other account nothing of the victim’s', async () => {
      const asBeta = bearer(beta.apiKey);
      const lists = [
        '/products',
        `/products?q=${encodeURIComponent('Curso')}`,
        '/checkout_pages',
        `/checkout_pages?product_ids[]=${alpha.productId}`,
        '/orders',
        '/notification_endpoints',
        `/orders?company_ids[]=${alpha.companyId}`,
        `/orders?cart_page_uuids[]=${alpha.cartPageId}`,
        `/orders?q=${encodeURIComponent(alpha.customerEmail)}`,
        `/orders?q=${alpha.charge.uid}`,
      ];
      for (const path of lists) {
        const res = await app.inject({ url: api(path), headers: asBeta });
        assert.equal(res.statusCode, 200, path);
        const ids = JSON.stringify(res.json());
        for (const foreign of [
          alpha.pageId,
          alpha.charge.uid,
          alpha.customerEmail,
          `"id":${alpha.productId},`,
          victimNotifications.endpointId,
        ])
          assert.ok(!ids.includes(foreign), `${path} shows ${foreign}`);
      }
      const own = await app.inject({
        url: api(`/orders?q=${encodeURIComponent(alpha.customerEmail)}`),
        headers: bearer(alpha.apiKey),
      });
      assert.ok(JSON.stringify(own.json()).includes(alpha.charge.uid), 'control: the victim finds its own order');
    });

    test('the victim’s checkout page payments by ids[] are not readable with the other key', async () => {
      const res = await app.inject({
        url: api(`/checkout_pages/${alpha.pageId}/payments?ids[]=${alpha.paymentUid}`),
        headers: bearer(beta.apiKey),
      });
      assert.equal(res.statusCode, 404);
    });

    test('appointment slots are open by specification and show only HH:MM times', async () => {
      const date = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
      const res = await app.inject({
        url: api(`/companies/${alpha.companyId}/available_schedules?date=${date}`),
        headers: bearer(beta.apiKey),
      });
      assert.equal(res.statusCode, 200);
      assert.ok(res.json().length > 0);
      for (const slot of res.json()) assert.match(slot, /^\d\d:\d\d$/);
    });

    test('upsell offers: a token re-signed with another key, or with its offer id swapped, is refused', async () => {
      const [payload, signature] = alpha.offerToken.split('.');
      const [betaPayload] = beta.offerToken.split('.');
      const forged = [
        signOfferToken(
          Buffer.alloc(32, 7),
          JSON.parse(Buffer.from(payload!, 'base64url').toString()).id,
          new Date(Date.now() + 60_000),
        ),
        `${betaPayload}.${signature}`,
        `${payload}.${signature}x`,
      ];
      for (const offer of forged) {
        const res = await app.inject({ method: 'POST', url: api('/upsell'), ...json({ offer }) });
        assert.equal(res.statusCode, 422, res.body);
      }
    });

    for (const attempt of WEBHOOK_ATTEMPTS) {
      test(`${attempt.route}: ${attempt.status} ${attempt.code}`, async () => {
        const res = await app.inject(attempt.request(alpha, beta));
        assert.equal(res.statusCode, attempt.status, res.body);
        assert.equal(res.json().code, attempt.code);
      });
    }

    test('POST /webhooks/invoicing with the attacker’s credentials and the victim’s order: stored for the attacker, ignored', async () => {
      const event = {
        id: 'evt_cross_invoice',
        type: 'invoice.authorized',
        data: { order_id: alpha.charge.uid, invoice: { id: 'nf-x', type: 'nfse', amount: 10_000 } },
      };
      const res = await app.inject({
        method: 'POST',
        url: api('/webhooks/invoicing'),
        headers: basic(beta.credentials.invoicing.username, beta.credentials.invoicing.password),
        ...json(event),
      });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'received' });
      await runWebhookJobs(database);
      const stored = await database.db
        .selectFrom('webhook_events')
        .select(['account_id', 'status'])
        .where('external_event_id', '=', 'evt_cross_invoice')
        .executeTakeFirstOrThrow();
      assert.deepEqual(stored, { account_id: beta.accountId, status: 'ignored' });
    });

    test('after every attempt, not one row of the victim’s account changed', async () => {
      assert.deepEqual(await snapshot(database, tables, alpha.accountId), untouched);
    });
  });
}
