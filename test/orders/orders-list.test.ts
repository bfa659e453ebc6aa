import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { bearer, createTenant, type Tenant } from '../support/app.ts';
import { documentedJson } from '../support/documented-response.ts';
import { engines } from '../support/engines.ts';
import { insertCartPage, insertCustomer, insertOrder, startRecordsApp } from '../support/records-fixtures.ts';

type Listed = {
  meta: { current_page: number; total_pages: number; total_count: number; per_page: number };
  data: Array<{ id: number; uid: string }>;
};

for (const engine of engines()) {
  describe(`GET /orders on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let alpha: Tenant;
    let beta: Tenant;
    let tokyo: number;
    let cartPage: string;
    const ids: Record<string, number> = {};
    const uids: Record<string, string> = {};
    const list = async (query: string, tenant = alpha): Promise<Listed & { status: number }> => {
      const res = await app.inject({ url: `/api/v1/orders${query}`, headers: bearer(tenant.apiKey) });
      return { status: res.statusCode, ...documentedJson(app, res) };
    };
    const listedIds = async (query: string) => {
      const res = await list(query);
      assert.equal(res.status, 200, JSON.stringify(res));
      return res.data.map((order) => order.id);
    };
    const named = (...names: string[]) => names.map((name) => ids[name]!);

    before(async () => {
      database = await engine.open();
      ({ app } = await startRecordsApp(database));
      alpha = await createTenant(database);
      beta = await createTenant(database);
      tokyo = (
        await database.db
          .insertInto('companies')
          .values({ account_id: alpha.accountId, name: 'Tokyo', slug: `${alpha.slug}-tokyo`, time_zone: 'Asia/Tokyo' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      cartPage = await insertCartPage(database, alpha);
      const maria = await insertCustomer(database, alpha, { name: 'Maria Souza', email: 'maria@shop.example' });
      const joao = await insertCustomer(database, alpha, { name: 'João 100% Lima', email: 'joao@other.example' });
      const orders: Array<[string, Parameters<typeof insertOrder>[2]]> = [
        // 2024-03-10T02:30Z is 2024-03-09 23:30 in São Paulo.
        [
          'late',
          {
            created_at: new Date('2024-03-10T02:30:00Z'),
            customer_id: maria,
            status: 'paid',
            paid_at: new Date('2024-03-12T12:00:00Z'),
            meta: { channel: 'ads', n: 3 },
          },
        ],
        [
          'early',
          {
            created_at: new Date('2024-03-10T03:30:00Z'),
            customer_id: joao,
            status: 'pending',
            date: '2024-03-01',
            due_date: '2024-03-20',
            meta: { channel: 'ads', campaign: 'x:y' },
          },
        ],
        // 2024-03-09T16:00Z is 2024-03-10 01:00 in Tokyo.
        [
          'tokyo',
          {
            created_at: new Date('2024-03-09T16:00:00Z'),
            company_id: tokyo,
            status: 'cancelled',
            scheduled_at: new Date('2024-04-01T12:00:00Z'),
            meta: { channel: 'email' },
          },
        ],
        [
          'cart',
          {
            created_at: new Date('2024-02-01T12:00:00Z'),
            cart_page_id: cartPage,
            customer_id: maria,
            status: 'waiting_payment',
            meta: { flag: true },
          },
        ],
      ];
      for (const [name, options] of orders) {
        const order = await insertOrder(database, alpha, options);
        ids[name] = order.id;
        uids[name] = order.uid;
      }
      await insertOrder(database, beta, { created_at: new Date('2024-03-10T02:30:00Z'), meta: { channel: 'ads' } });
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    test('newest first, with the default page meta', async () => {
      const res = await list('');
      assert.deepEqual(
        res.data.map((o) => o.id),
        named('early', 'late', 'tokyo', 'cart'),
      );
      assert.deepEqual(res.meta, { current_page: 1, total_pages: 1, total_count: 4, per_page: 25 });
    });

    test('orders created in the same instant are ordered by id, newest first', async () => {
      const tenant = await createTenant(database);
      const at = new Date('2024-01-01T00:00:00Z');
      const first = await insertOrder(database, tenant, { created_at: at });
      const second = await insertOrder(database, tenant, { created_at: at });
      assert.deepEqual(
        (await list('', tenant)).data.map((o) => o.id),
        [second.id, first.id],
      );
    });

    test('pagination meta for none, one and many pages', async () => {
      const empty = await createTenant(database);
      assert.deepEqual((await list('', empty)).meta, { current_page: 1, total_pages: 0, total_count: 0, per_page: 25 });
      assert.deepEqual((await list('', empty)).data, []);
      const many = await createTenant(database);
      const created: number[] = [];
      for (let i = 0; i < 16; i++)
        created.push((await insertOrder(database, many, { created_at: new Date(Date.UTC(2024, 0, 1, 0, i)) })).id);
      const newestFirst = created.reverse();
      assert.deepEqual((await list('?limit=16', many)).meta, {
        current_page: 1,
        total_pages: 1,
        total_count: 16,
        per_page: 16,
      });
      const pages = await Promise.all([1, 2, 3, 4].map((page) => list(`?limit=5&page=${page}`, many)));
      assert.deepEqual(
        pages.map((p) => p.meta.total_pages),
        [4, 4, 4, 4],
      );
      assert.deepEqual(
        pages.map((p) => p.meta.current_page),
        [1, 2, 3, 4],
      );
      assert.deepEqual(
        pages.flatMap((p) => p.data.map((o) => o.id)),
        newestFirst,
      );
      assert.equal(pages[3]!.data.length, 1);
      const beyond = await list('?limit=5&page=9', many);
      assert.deepEqual(beyond.data, []);
      assert.deepEqual(beyond.meta, { current_page: 9, total_pages: 4, total_count: 16, per_page: 5 });
      assert.equal((await list('?limit=100', many)).meta.per_page, 100);
    });

    test('created_at range is taken in each company’s time zone, inclusive', async () => {
      assert.deepEqual(await listedIds('?initial_date=2024-03-09&final_date=2024-03-09'), named('late'));
      assert.deepEqual(await listedIds('?initial_date=2024-03-10&final_date=2024-03-10'), named('early', 'tokyo'));
      assert.deepEqual(await listedIds('?initial_date=2024-03-10'), named('early', 'tokyo'));
      assert.deepEqual(await listedIds('?final_date=2024-03-09&period_date_filter=created_at'), named('late', 'cart'));
      assert.deepEqual(await listedIds(`?initial_date=2024-03-10&company_ids[]=${tokyo}`), named('tokyo'));
    });

    test('paid_at, date, due_date and scheduled_at ranges', async () => {
      assert.deepEqual(
        await listedIds('?period_date_filter=paid_at&initial_date=2024-03-12&final_date=2024-03-12'),
        named('late'),
      );
      assert.deepEqual(await listedIds('?period_date_filter=paid_at&initial_date=2024-03-13'), []);
      assert.deepEqual(
        await listedIds('?period_date_filter=date&initial_date=2024-03-01&final_date=2024-03-01'),
        named('early'),
      );
      assert.deepEqual(await listedIds('?period_date_filter=due_date&final_date=2024-03-20'), named('early'));
      assert.deepEqual(await listedIds('?period_date_filter=due_date&final_date=2024-03-19'), []);
      assert.deepEqual(
        await listedIds('?period_date_filter=scheduled_at&initial_date=2024-04-01&final_date=2024-04-01'),
        named('tokyo'),
      );
      assert.deepEqual(await listedIds('?period_date_filter=paid_at'), named('early', 'late', 'tokyo', 'cart'));
    });

    test('q matches customer name and email (literally), order id and uid', async () => {
      assert.deepEqual(await listedIds('?q=maria'), named('late', 'cart'));
      assert.deepEqual(await listedIds('?q=OTHER.EXAMPLE'), named('early'));
      assert.deepEqual(await listedIds('?q=100%25'), named('early'));
      assert.deepEqual(await listedIds('?q=%25'), named('early'));
      assert.deepEqual(await listedIds('?q=_'), []);
      assert.deepEqual(await listedIds(`?q=${ids.tokyo}`), named('tokyo'));
      assert.deepEqual(await listedIds(`?q=${uids.cart!.toUpperCase()}`), named('cart'));
    });

    test('cart_page_uuids, company_ids and status filters', async () => {
      assert.deepEqual(await listedIds(`?cart_page_uuids[]=${cartPage}`), named('cart'));
      assert.deepEqual(
        await listedIds(`?cart_page_uuids[]=${cartPage}&cart_page_uuids[]=00000000-0000-4000-8000-000000000000`),
        named('cart'),
      );
      assert.deepEqual(await listedIds(`?company_ids[]=${tokyo}`), named('tokyo'));
      assert.deepEqual(
        await listedIds(`?company_ids[]=${alpha.companyId}&company_ids[]=${tokyo}`),
        named('early', 'late', 'tokyo', 'cart'),
      );
      assert.deepEqual(await listedIds(`?company_ids[]=${beta.companyId}`), []);
      assert.deepEqual(await listedIds('?status[]=paid&status[]=cancelled'), named('late', 'tokyo'));
      assert.deepEqual(await listedIds('?status=waiting_payment'), named('cart'));
      assert.deepEqual(await listedIds('?status[]=refunded'), []);
    });

    test('meta[]=key:value filters: every pair must match; numbers and booleans match their spelling', async () => {
      assert.deepEqual(await listedIds('?meta[]=channel:ads'), named('early', 'late'));
      assert.deepEqual(await listedIds('?meta[]=channel:ads&meta[]=n:3'), named('late'));
      assert.deepEqual(await listedIds('?meta[]=campaign:x:y'), named('early'));
      assert.deepEqual(await listedIds('?meta[]=flag:true'), named('cart'));
      assert.deepEqual(await listedIds('?meta[]=channel:'), []);
      assert.deepEqual(await listedIds('?meta=channel:email'), named('tokyo'));
    });

    test('filters combine', async () => {
      assert.deepEqual(await listedIds('?q=maria&status[]=paid'), named('late'));
      assert.deepEqual(
        await listedIds('?meta[]=channel:ads&initial_date=2024-03-10&final_date=2024-03-10'),
        named('early'),
      );
      assert.deepEqual(
        await listedIds(
          `?q=maria&cart_page_uuids[]=${cartPage}&status[]=waiting_payment&company_ids[]=${alpha.companyId}`,
        ),
        named('cart'),
      );
      const page = await list('?meta[]=channel:ads&limit=1&page=2');
      assert.deepEqual(
        page.data.map((o) => o.id),
        named('late'),
      );
      assert.deepEqual(page.meta, { current_page: 2, total_pages: 2, total_count: 2, per_page: 1 });
    });

    test('another account sees none of these orders, whatever the filters', async () => {
      for (const query of [
        '',
        `?q=maria`,
        `?q=${ids.late}`,
        `?company_ids[]=${alpha.companyId}`,
        `?cart_page_uuids[]=${cartPage}`,
        '?meta[]=channel:ads',
      ]) {
        const res = await list(query, beta);
        assert.equal(res.status, 200);
        assert.ok(
          res.data.every((order) => !Object.values(ids).includes(order.id)),
          query,
        );
      }
      assert.equal((await list('', beta)).meta.total_count, 1);
    });

    test('invalid queries are 422 validation_failed', async () => {
      for (const query of [
        '?limit=101',
        '?limit=0',
        '?page=0',
        '?page=x',
        '?status[]=shipped',
        '?period_date_filter=updated_at',
        '?initial_date=2024-13-01',
        '?final_date=10/03/2024',
        '?initial_date=2024-03-10&final_date=2024-03-09',
        '?meta[]=novalue',
        '?meta[]=:v',
        '?company_ids[]=abc',
        '?cart_page_uuids[]=not-a-uuid',
        '?unknown=1',
      ]) {
        const res = await app.inject({ url: `/api/v1/orders${query}`, headers: bearer(alpha.apiKey) });
        assert.equal(res.statusCode, 422, query);
        assert.equal(res.json().code, 'validation_failed', query);
      }
    });

    test('a key is required', async () => {
      assert.equal((await app.inject({ url: '/api/v1/orders' })).statusCode, 401);
      assert.equal(
        (await app.inject({ url: '/api/v1/orders', headers: { origin: 'https://alpha.example' } })).statusCode,
        401,
      );
    });
  });
}
