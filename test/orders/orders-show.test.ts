import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { documentedJson } from '../support/documented-response.ts';
import { engines } from '../support/engines.ts';
import {
  insertCartPage,
  insertCheckoutPage,
  insertOrder,
  insertProduct,
  startRecordsApp,
} from '../support/records-fixtures.ts';

for (const engine of engines()) {
  describe(`GET /orders/{id} on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let beta: Tenant;
    let rich: { id: number; uid: string };
    let bare: { id: number; uid: string };
    let productId: number;
    const show = (id: number | string, tenant = alpha) =>
      app.inject({ url: `/api/v1/orders/${id}`, headers: bearer(tenant.apiKey) });

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      alpha = await createTenant(database);
      beta = await createTenant(database);
      const db = database.db;
      const customer = await db
        .insertInto('customers')
        .values({
          account_id: alpha.accountId,
          company_id: alpha.companyId,
          email: 'ana@example.com',
          name: 'Ana',
          identification: '52998224725',
          phone: '11987654321',
          street: 'Rua B',
          number: '5',
          city: 'Recife',
          state: 'PE',
          utms: JSON.stringify({ utm_source: 'google' }),
          meta: JSON.stringify({ tier: 'gold' }),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const seller = await db
        .insertInto('sellers')
        .values({ account_id: alpha.accountId, company_id: alpha.companyId, name: 'Vendedor' })
        .returning('id')
        .executeTakeFirstOrThrow();
      productId = await insertProduct(database, alpha, {
        name: 'Clube',
        subscription: true,
        interval: 'month',
        intervalCount: 3,
      });
      rich = await insertOrder(database, alpha, {
        customer_id: customer.id,
        seller_id: seller.id,
        checkout_page_id: await insertCheckoutPage(database, alpha, { title: 'Página do clube' }),
        cart_page_id: await insertCartPage(database, alpha, { name: 'Carrinho VIP' }),
        status: 'paid',
        coupon_code: 'VIP',
        deal_id: 77,
        observation: 'Obs',
        discount_cents: 500,
        subtotal_cents: 30_000,
        freight_cents: 1_250,
        total_cents: 30_750,
        date: '2024-05-01',
        due_date: '2024-05-10',
        scheduled_at: new Date('2024-05-02T15:00:00Z'),
        created_at: new Date('2024-05-01T10:00:00Z'),
        meta: { ref: 'abc' },
        utms: JSON.stringify({ utm_campaign: 'may' }),
        freight_details: JSON.stringify({ brand: 'Correios', type: 'PAC', carrier: 'ECT', quantity: 2 }),
        items: [{ productId, name: 'Clube', quantity: 2, unitCents: 15_000 }],
      });
      await db
        .updateTable('order_items')
        .set({ subscription: true, interval: 'month', cycle: 3, unit_name: 'seat' })
        .where('order_id', '=', rich.id)
        .returning('id')
        .execute();
      await db
        .insertInto('payments')
        .values({
          uid: crypto.randomUUID(),
          account_id: alpha.accountId,
          company_id: alpha.companyId,
          order_id: rich.id,
          gateway: 'gateway_a',
          method: 'credit_card',
          status: 'paid',
          installments: 3,
          amount_cents: 30_750,
          interest_cents: 150,
          installment_value_cents: 10_250,
          gateway_id: 'ch_1',
          created_at: new Date('2024-05-01T10:01:00Z'),
          paid_at: new Date('2024-05-01T10:02:00Z'),
        })
        .execute();
      await db
        .insertInto('invoices')
        .values({
          account_id: alpha.accountId,
          order_id: rich.id,
          external_id: 'nf-1',
          type: 'NFS-e',
          number: '123',
          series: '1',
          status: 'authorized',
          value_cents: 30_750,
        })
        .execute();
      bare = await insertOrder(database, alpha, { date: '2024-06-01', created_at: new Date('2024-06-01T10:00:00Z') });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('returns the complete OrderData in major units with ISO dates', async () => {
      const res = await show(rich.id);
      assert.equal(res.statusCode, 200);
      const company = await database.db
        .selectFrom('companies')
        .select('name')
        .where('id', '=', alpha.companyId)
        .executeTakeFirstOrThrow();
      const pages = await database.db
        .selectFrom('orders as o')
        .innerJoin('checkout_pages as cp', 'cp.id', 'o.checkout_page_id')
        .innerJoin('cart_pages as crp', 'crp.id', 'o.cart_page_id')
        .select(['cp.numeric_id as checkout', 'crp.numeric_id as cart'])
        .where('o.id', '=', rich.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(documentedJson(app, res), {
        id: rich.id,
        uid: rich.uid,
        link: `http://pay.test/pay/charges/${rich.uid}`,
        due_date: '2024-05-10',
        coupon_code: 'VIP',
        deal_id: 77,
        observation: 'Obs',
        seller_id: res.json().seller_id,
        status: 'paid',
        meta: { ref: 'abc' },
        utms: { utm_campaign: 'may' },
        discount: 5,
        total: 307.5,
        created_at: '2024-05-01T10:00:00.000Z',
        date: '2024-05-01',
        scheduled_at: '2024-05-02T15:00:00.000Z',
        charge_page: { id: pages.cart, name: 'Carrinho VIP' },
        checkout_page: { id: pages.checkout, name: 'Página do clube' },
        customer: {
          email: 'ana@example.com',
          name: 'Ana',
          identification: '52998224725',
          phone: '11987654321',
          utms: { utm_source: 'google' },
          meta: { tier: 'gold' },
          address: {
            street: 'Rua B',
            neighborhood: null,
            number: '5',
            complement: null,
            zipcode: null,
            city: 'Recife',
            state: 'PE',
          },
        },
        seller: { name: 'Vendedor' },
        items: [
          {
            product_id: productId,
            product_name: 'Clube',
            unit_name: 'seat',
            interval: 'month',
            cycle: 3,
            quantity: 2,
            subscription: true,
            total: 300,
            value: 150,
          },
        ],
        payments: [
          {
            gateway_id: 'ch_1',
            installments: 3,
            status: 'paid',
            type: 'credit_card',
            amount: 307.5,
            company: company.name,
            created_at: '2024-05-01T10:01:00.000Z',
            installment_value: 102.5,
            interest: 1.5,
            paid_at: '2024-05-01T10:02:00.000Z',
            cancelled_at: null,
          },
        ],
        invoices: [{ number: '123', series: '1', status: 'authorized', type: 'NFS-e', value: 307.5 }],
        freight: { brand: 'Correios', charge: 12.5, type: 'PAC', quantity: 2, total: 12.5, carrier: 'ECT' },
      });
      assert.equal(typeof res.json().seller_id, 'number');
    });

    test('unset fields are null, lists are empty', async () => {
      const body = documentedJson(app, await show(bare.id));
      for (const field of [
        'due_date',
        'coupon_code',
        'deal_id',
        'observation',
        'seller_id',
        'scheduled_at',
        'charge_page',
        'checkout_page',
        'customer',
        'seller',
        'freight',
      ]) {
        assert.equal(body[field], null, field);
      }
      assert.deepEqual([body.items, body.payments, body.invoices], [[], [], []]);
      assert.deepEqual([body.meta, body.utms, body.discount, body.total, body.status], [{}, {}, 0, 0, 'pending']);
    });

    test('freight without details is the amount with one volume', async () => {
      const order = await insertOrder(database, alpha, { freight_cents: 990 });
      assert.deepEqual(documentedJson(app, await show(order.id)).freight, {
        brand: null,
        charge: 9.9,
        type: null,
        quantity: 1,
        total: 9.9,
        carrier: null,
      });
    });

    test('another account’s order, an unknown id and a bad id', async () => {
      const foreign = await show(rich.id, beta);
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().code, 'not_found');
      assert.equal((await show(9_999_999)).statusCode, 404);
      assert.equal((await show('abc')).statusCode, 422);
      assert.equal((await show(0)).statusCode, 422);
      assert.equal((await app.inject({ url: `/api/v1/orders/${rich.id}` })).statusCode, 401);
    });
  });
}
