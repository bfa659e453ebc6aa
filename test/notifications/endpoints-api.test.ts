import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { bearer, createTenant, LogCapture, testConfig, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import {
  deliveriesOf,
  deliveryWorker,
  drainDeliveries,
  insertOrder,
  moveOrder,
  testClock,
  type TestClock,
} from './fixtures.ts';
import { Receiver } from './receiver.ts';

const api = (path: string) => `/api/v1${path}`;

for (const engine of engines()) {
  describe(`notification endpoints API on ${engine.name}`, { timeout: 180_000 }, () => {
    let database: Database;
    let app: FastifyInstance;
    let config: Config;
    let clock: TestClock;
    let alpha: Tenant;
    let beta: Tenant;
    const logs = new LogCapture();
    const receivers: Receiver[] = [];
    const receiver = async (options: Partial<ConstructorParameters<typeof Receiver>[0]> = {}) => {
      const created = new Receiver({ secrets: [], now: () => clock.now(), ...options });
      receivers.push(created);
      return { receiver: created, url: await created.start() };
    };
    const call = (tenant: Tenant, options: InjectOptions) =>
      app.inject({
        ...options,
        url: api(options.url as string),
        headers: { ...bearer(tenant.apiKey), ...options.headers },
      });
    const create = (tenant: Tenant, body: object) =>
      call(tenant, { method: 'POST', url: '/notification_endpoints', payload: body });
    const drain = () => drainDeliveries(database, deliveryWorker(database, config.masterKey, clock), clock);
    /** A new order of the tenant reaching `paid`: one `order.paid` event. */
    const paidOrder = async (tenant: Tenant) => {
      const order = await insertOrder(database, tenant);
      await moveOrder(database, tenant, order.id, 'paid', clock.now());
      return order;
    };

    before(async () => {
      database = await engine.open();
      clock = testClock();
      config = testConfig();
      // The most verbose level, so the secret-free logs below cover every line the routes can write.
      app = await buildApp({ config, database, logger: createLogger('trace', logs), clock: clock.now });
      await app.ready();
      alpha = await createTenant(database);
      beta = await createTenant(database);
    });
    after(async () => {
      await app.close();
      await Promise.all(receivers.map((entry) => entry.close()));
      await database.close();
    });

    test('creation returns the secret once; list and get never show it; an event to the endpoint verifies with it', async () => {
      const { receiver: merchant, url } = await receiver();
      const res = await create(alpha, { url, event_types: ['order.paid'], description: 'ERP' });
      assert.equal(res.statusCode, 201, res.body);
      const created = res.json();
      assert.match(created.id, /^ep_[0-9a-f]{24}$/);
      assert.match(created.secret, /^whsec_/);
      assert.deepEqual(
        { ...created, id: undefined, secret: undefined, created_at: undefined },
        {
          id: undefined,
          secret: undefined,
          created_at: undefined,
          url,
          company_id: null,
          event_types: ['order.paid'],
          enabled: true,
          description: 'ERP',
          secret_rotation_ends_at: null,
        },
      );

      const listed = await call(alpha, { url: '/notification_endpoints' });
      const shown = await call(alpha, { url: `/notification_endpoints/${created.id}` });
      assert.equal(listed.statusCode, 200);
      assert.equal(shown.statusCode, 200);
      assert.deepEqual(
        listed.json().find((item: { id: string }) => item.id === created.id),
        shown.json(),
      );
      for (const body of [listed.body, shown.body]) {
        assert.ok(!body.includes(created.secret), 'the secret is shown again');
        assert.ok(!body.includes('"secret"'), 'a secret field is shown');
      }
      const stored = await database.db
        .selectFrom('notification_endpoints')
        .select('secret_encrypted')
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      assert.ok(
        !stored.secret_encrypted.includes(created.secret.slice('whsec_'.length)),
        'the secret is stored sealed',
      );

      merchant.options.secrets = [created.secret];
      await paidOrder(alpha);
      await drain();
      assert.equal(merchant.received.length, 1);
      assert.equal(merchant.received[0]!.headers['checkout-event-type'], 'order.paid');
      assert.deepEqual(merchant.received[0]!.verifiedBy, [0], 'signed with the secret creation returned');
    });

    test('creation: every type by default, ["*"] means every type, a company of the account, defaults', async () => {
      const all = await create(alpha, { url: 'https://erp.example.com/all' });
      assert.equal(all.statusCode, 201, all.body);
      assert.deepEqual(all.json().event_types, ['*']);
      const star = await create(alpha, {
        url: 'https://erp.example.com/star',
        event_types: ['*'],
        company_id: alpha.companyId,
        enabled: false,
      });
      assert.equal(star.statusCode, 201, star.body);
      assert.deepEqual(
        [star.json().event_types, star.json().company_id, star.json().enabled],
        [['*'], alpha.companyId, false],
      );
    });

    test('bad input is 422 in the error format, a taken URL 409, and nothing is stored', async () => {
      const before = (await deliveriesOf(database, alpha.accountId)).length;
      const count = async () =>
        (
          await database.db
            .selectFrom('notification_endpoints')
            .select('id')
            .where('account_id', '=', alpha.accountId)
            .execute()
        ).length;
      const endpoints = await count();
      const refusals: Array<[object, string, RegExp]> = [
        [{ url: 'ftp://erp.example.com/hooks' }, 'body/url', /http or https/],
        [{ url: 'not a url' }, 'body/url', /not a URL/],
        [{ url: 'HTTPS://erp.example.com/hooks' }, 'body/url', /http or https/],
        [{ url: ' https://erp.example.com/hooks' }, 'body/url', /http or https/],
        [{ url: 'https://user:pw@erp.example.com/hooks' }, 'body/url', /credentials/],
        [{ url: 'https://erp.example.com/hooks ' }, 'body/url', /spaces or control characters/],
        [{ url: 'https://erp.example.com/hooks\n' }, 'body/url', /spaces or control characters/],
        [
          { url: 'https://erp.example.com/x', event_types: ['order.shipped'] },
          'body/event_types',
          /unknown event type order\.shipped/,
        ],
        [
          { url: 'https://erp.example.com/x', event_types: ['*', 'order.paid'] },
          'body/event_types',
          /cannot be combined/,
        ],
        [
          { url: 'https://erp.example.com/x', company_id: beta.companyId },
          'body/company_id',
          /not a company of this account/,
        ],
        [{ url: 'https://erp.example.com/x', secret: 'whsec_mine' }, 'body/secret', /additional/],
        [{ url: 'https://erp.example.com/x', enabled: 'yes' }, 'body/enabled', /boolean/],
      ];
      for (const [body, field, message] of refusals) {
        const res = await create(alpha, body);
        assert.equal(res.statusCode, 422, `${JSON.stringify(body)}: ${res.body}`);
        const error = res.json();
        assert.equal(error.code, 'validation_failed');
        assert.equal(typeof error.request_id, 'string');
        const detail = error.details.find((item: { field: string }) => item.field === field);
        assert.ok(detail, `${JSON.stringify(body)}: ${res.body}`);
        assert.match(detail.message, message);
      }
      const taken = await create(alpha, { url: 'https://erp.example.com/all' });
      assert.equal(taken.statusCode, 409, taken.body);
      assert.equal(taken.json().code, 'conflict');
      assert.equal(await count(), endpoints);
      assert.equal((await deliveriesOf(database, alpha.accountId)).length, before);
    });

    test('the same URL created by concurrent requests: one 201, every other a 409 conflict', async () => {
      const url = `https://erp.example.com/race-${Date.now()}`;
      const answers = await Promise.all(Array.from({ length: 6 }, () => create(alpha, { url })));
      assert.deepEqual(
        answers.map((res) => res.statusCode).sort(),
        [201, 409, 409, 409, 409, 409],
        answers.map((res) => res.body).join('\n'),
      );
      // Whether the check or the unique index stopped it, a loser gets the same answer.
      for (const lost of answers.filter((res) => res.statusCode === 409)) {
        assert.deepEqual(lost.json().details, [{ field: 'body/url', message: 'already registered' }], lost.body);
      }
    });

    test('secret_rotation_ends_at is shown while the grace period lasts, null once it ended', async () => {
      const { url } = await receiver();
      const created = (await create(alpha, { url })).json();
      const path = `/notification_endpoints/${created.id}`;
      const rotated = (
        await call(alpha, { method: 'POST', url: `${path}/rotate_secret`, payload: { grace_seconds: 60 } })
      ).json();
      assert.equal(Date.parse(rotated.secret_rotation_ends_at), clock.now().getTime() + 60_000);
      assert.equal((await call(alpha, { url: path })).json().secret_rotation_ends_at, rotated.secret_rotation_ends_at);
      clock.advance(61_000);
      assert.equal((await call(alpha, { url: path })).json().secret_rotation_ends_at, null);
    });

    test('PATCH changes only the fields sent and validates them like creation', async () => {
      const created = (
        await create(alpha, {
          url: 'https://erp.example.com/patch',
          event_types: ['order.paid'],
          description: 'kept',
          company_id: alpha.companyId,
        })
      ).json();
      const path = `/notification_endpoints/${created.id}`;
      const patched = await call(alpha, {
        method: 'PATCH',
        url: path,
        payload: { event_types: ['order.refunded', 'refund.succeeded'] },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.deepEqual(
        [
          patched.json().event_types,
          patched.json().description,
          patched.json().url,
          patched.json().company_id,
          patched.json().enabled,
        ],
        [['order.refunded', 'refund.succeeded'], 'kept', 'https://erp.example.com/patch', alpha.companyId, true],
      );
      assert.ok(!patched.body.includes('secret"'), patched.body);
      const cleared = await call(alpha, {
        method: 'PATCH',
        url: path,
        payload: { description: null, event_types: [], url: 'https://erp.example.com/patched' },
      });
      assert.deepEqual(
        [cleared.json().description, cleared.json().event_types, cleared.json().url],
        [null, ['*'], 'https://erp.example.com/patched'],
      );

      for (const [body, field] of [
        [{ url: 'javascript:alert(1)' }, 'body/url'],
        [{ url: 'not a url' }, 'body/url'],
        [{ event_types: ['order.paid', 'order.exploded'] }, 'body/event_types'],
        [{ company_id: beta.companyId }, 'body/company_id'],
        [{ description: 'x'.repeat(501) }, 'body/description'],
      ] as const) {
        const res = await call(alpha, { method: 'PATCH', url: path, payload: body });
        assert.equal(res.statusCode, 422, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.ok(
          res.json().details.some((item: { field: string }) => item.field === field),
          res.body,
        );
      }
      const taken = await call(alpha, { method: 'PATCH', url: path, payload: { url: 'https://erp.example.com/all' } });
      assert.equal(taken.statusCode, 409, taken.body);
      const unchanged = (await call(alpha, { url: path })).json();
      assert.deepEqual(
        [unchanged.url, unchanged.event_types, unchanged.description],
        ['https://erp.example.com/patched', ['*'], null],
      );
      assert.equal(
        (await call(alpha, { method: 'PATCH', url: '/notification_endpoints/ep_nope', payload: {} })).statusCode,
        422,
      );
      assert.equal(
        (await call(alpha, { method: 'PATCH', url: `/notification_endpoints/ep_${'0'.repeat(24)}`, payload: {} }))
          .statusCode,
        404,
      );
    });

    test('rotation returns a new secret; during the grace both secrets verify, with grace 0 only the new one', async () => {
      const { receiver: merchant, url } = await receiver();
      const tenant = await createTenant(database);
      const created = (await create(tenant, { url })).json();
      const rotated = await call(tenant, {
        method: 'POST',
        url: `/notification_endpoints/${created.id}/rotate_secret`,
        payload: { grace_seconds: 3600 },
      });
      assert.equal(rotated.statusCode, 200, rotated.body);
      const second = rotated.json();
      assert.match(second.secret, /^whsec_/);
      assert.notEqual(second.secret, created.secret);
      assert.ok(second.secret_rotation_ends_at, 'the grace period is shown');
      merchant.options.secrets = [created.secret, second.secret];
      await paidOrder(tenant);
      await drain();
      assert.deepEqual(merchant.received.at(-1)!.verifiedBy, [0, 1], 'either secret verifies during the grace period');
      assert.ok(!(await call(tenant, { url: `/notification_endpoints/${created.id}` })).body.includes(second.secret));

      // Without a body: the default grace period.
      const third = (
        await call(tenant, { method: 'POST', url: `/notification_endpoints/${created.id}/rotate_secret` })
      ).json();
      assert.match(third.secret, /^whsec_/);
      const fourth = (
        await call(tenant, {
          method: 'POST',
          url: `/notification_endpoints/${created.id}/rotate_secret`,
          payload: { grace_seconds: 0 },
        })
      ).json();
      assert.equal(fourth.secret_rotation_ends_at, null);
      merchant.options.secrets = [created.secret, second.secret, third.secret, fourth.secret];
      await paidOrder(tenant);
      await drain();
      assert.deepEqual(merchant.received.at(-1)!.verifiedBy, [3], 'grace 0 drops the previous secret at once');

      for (const payload of [
        { grace_seconds: -1 },
        { grace_seconds: 1.5 },
        { grace_seconds: 8 * 86_400 },
        { grace: 1 },
      ]) {
        const res = await call(tenant, {
          method: 'POST',
          url: `/notification_endpoints/${created.id}/rotate_secret`,
          payload,
        });
        assert.equal(res.statusCode, 422, `${JSON.stringify(payload)}: ${res.body}`);
      }
    });

    test('a disabled endpoint (PATCH or DELETE) gets no new deliveries; DELETE keeps it and its history', async () => {
      const { receiver: merchant, url } = await receiver();
      const tenant = await createTenant(database);
      const created = (await create(tenant, { url })).json();
      merchant.options.secrets = [created.secret];
      await paidOrder(tenant);
      await drain();
      assert.equal(merchant.received.length, 1);

      const disabled = await call(tenant, {
        method: 'PATCH',
        url: `/notification_endpoints/${created.id}`,
        payload: { enabled: false },
      });
      assert.equal(disabled.json().enabled, false);
      await paidOrder(tenant);
      await drain();
      assert.equal((await deliveriesOf(database, tenant.accountId)).length, 1, 'no delivery for a disabled endpoint');

      await call(tenant, { method: 'PATCH', url: `/notification_endpoints/${created.id}`, payload: { enabled: true } });
      const deleted = await call(tenant, { method: 'DELETE', url: `/notification_endpoints/${created.id}` });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.equal(deleted.json().enabled, false);
      await paidOrder(tenant);
      await drain();
      assert.equal(merchant.received.length, 1, 'nothing sent after DELETE');
      const kept = await call(tenant, { url: `/notification_endpoints/${created.id}/deliveries` });
      assert.equal(kept.statusCode, 200);
      assert.equal(kept.json().data.length, 1, 'the delivery history outlives DELETE');
      assert.equal(kept.json().data[0].status, 'delivered');
      assert.ok(
        (await call(tenant, { url: '/notification_endpoints' }))
          .json()
          .some((item: { id: string; enabled: boolean }) => item.id === created.id && !item.enabled),
      );
      assert.deepEqual(
        (await call(tenant, { url: '/notification_endpoints?enabled=false' }))
          .json()
          .map((item: { id: string }) => item.id),
        [created.id],
      );
      assert.deepEqual((await call(tenant, { url: '/notification_endpoints?enabled=true' })).json(), []);
      assert.equal((await call(tenant, { url: '/notification_endpoints?enabled=maybe' })).statusCode, 422);
    });

    test('failed deliveries are listed with their attempts and last error, and redelivered through the API', async () => {
      const { receiver: merchant, url } = await receiver({ alwaysAnswer: 500 });
      const tenant = await createTenant(database);
      const created = (await create(tenant, { url, event_types: ['order.paid'] })).json();
      merchant.options.secrets = [created.secret];
      await paidOrder(tenant);
      await drain();
      const path = `/notification_endpoints/${created.id}/deliveries`;

      const failed = await call(tenant, { url: `${path}?status=failed` });
      assert.equal(failed.statusCode, 200, failed.body);
      assert.deepEqual(failed.json().meta, { current_page: 1, total_pages: 1, total_count: 1, per_page: 25 });
      const [delivery] = failed.json().data;
      assert.match(delivery.id, /^dlv_/);
      assert.match(delivery.event_id, /^evt_/);
      assert.deepEqual(
        [
          delivery.endpoint_id,
          delivery.event_type,
          delivery.status,
          delivery.attempts,
          delivery.last_status_code,
          delivery.last_error,
          delivery.next_attempt_at,
        ],
        [created.id, 'order.paid', 'failed', 15, 500, 'HTTP 500', null],
      );
      assert.equal((await call(tenant, { url: `${path}?status=delivered` })).json().data.length, 0);

      merchant.options.alwaysAnswer = undefined;
      const again = await call(tenant, { method: 'POST', url: `/notification_deliveries/${delivery.id}/redeliver` });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().redelivered, true);
      assert.equal(again.json().delivery.status, 'pending');
      // Its attempt is queued: asking again does not queue a second one.
      const twice = await call(tenant, {
        method: 'POST',
        url: `/notification_deliveries/${delivery.id}/redeliver`,
        payload: {},
      });
      assert.equal(twice.json().redelivered, false);
      await drain();
      const delivered = (await call(tenant, { url: `${path}?status=delivered` })).json();
      assert.equal(delivered.data.length, 1);
      assert.deepEqual(
        [delivered.data[0].id, delivered.data[0].attempts, delivered.data[0].last_error],
        [delivery.id, 16, null],
      );
      assert.equal(merchant.received.at(-1)!.eventId, delivery.event_id);
      assert.deepEqual(merchant.received.at(-1)!.verifiedBy, [0]);

      // Pagination, as GET /orders.
      await paidOrder(tenant);
      await drain();
      const page = (await call(tenant, { url: `${path}?limit=1&page=2` })).json();
      assert.deepEqual(page.meta, { current_page: 2, total_pages: 2, total_count: 2, per_page: 1 });
      assert.equal(page.data[0].id, delivery.id, 'newest first');
      for (const query of ['status=lost', 'limit=0', 'limit=101', 'page=0', 'extra=1']) {
        assert.equal((await call(tenant, { url: `${path}?${query}` })).statusCode, 422, query);
      }
      assert.equal(
        (
          await call(tenant, {
            method: 'POST',
            url: `/notification_deliveries/${delivery.id}/redeliver`,
            payload: { now: true },
          })
        ).statusCode,
        422,
      );
      assert.equal(
        (await call(tenant, { method: 'POST', url: `/notification_deliveries/dlv_${'0'.repeat(24)}/redeliver` }))
          .statusCode,
        404,
      );
    });

    test('another account’s key: 404 on every route of the endpoint and its deliveries, and its list shows none of them', async () => {
      const { receiver: merchant, url } = await receiver({ alwaysAnswer: 500 });
      const created = (await create(alpha, { url, event_types: ['order.paid'] })).json();
      merchant.options.secrets = [created.secret];
      await paidOrder(alpha);
      await drain();
      const [delivery] = (await deliveriesOf(database, alpha.accountId)).filter(
        (row) => row.endpoint_id === created.id,
      );
      assert.equal(delivery!.status, 'failed');
      const rowsBefore = await database.db
        .selectFrom('notification_endpoints')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      const attempts: Array<[InjectOptions, RegExp]> = [
        [{ url: `/notification_endpoints/${created.id}` }, /Notification endpoint not found/],
        [
          { method: 'PATCH', url: `/notification_endpoints/${created.id}`, payload: { enabled: false } },
          /Notification endpoint not found/,
        ],
        [{ method: 'DELETE', url: `/notification_endpoints/${created.id}` }, /Notification endpoint not found/],
        [
          { method: 'POST', url: `/notification_endpoints/${created.id}/rotate_secret`, payload: { grace_seconds: 0 } },
          /Notification endpoint not found/,
        ],
        [{ url: `/notification_endpoints/${created.id}/deliveries?status=failed` }, /Notification endpoint not found/],
        [
          { method: 'POST', url: `/notification_deliveries/${delivery!.id}/redeliver` },
          /Notification delivery not found/,
        ],
      ];
      for (const [request, reason] of attempts) {
        const foreign = await call(beta, request);
        const missing = await call(beta, {
          ...request,
          url: (request.url as string).replace(
            /(ep|dlv)_[0-9a-f]{24}/,
            (id) => `${id.split('_')[0]}_${'f'.repeat(24)}`,
          ),
        });
        assert.equal(foreign.statusCode, 404, `${request.method ?? 'GET'} ${request.url}: ${foreign.body}`);
        assert.match(foreign.body, reason);
        assert.deepEqual(
          { ...(foreign.json() as object), request_id: undefined },
          { ...(missing.json() as object), request_id: undefined },
          'the same answer as a missing id',
        );
      }
      const betaList = await call(beta, { url: '/notification_endpoints' });
      assert.equal(betaList.statusCode, 200);
      assert.ok(!betaList.body.includes(created.id));
      assert.ok(!betaList.body.includes(alpha.accountId));
      const rowsAfter = await database.db
        .selectFrom('notification_endpoints')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(rowsAfter, rowsBefore, 'the victim’s endpoint is untouched');
      const deliveryAfter = await database.db
        .selectFrom('notification_deliveries')
        .select(['status', 'attempts'])
        .where('id', '=', delivery!.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(deliveryAfter, { status: 'failed', attempts: delivery!.attempts }, 'not redelivered');
      assert.equal(
        (await call(alpha, { url: `/notification_endpoints/${created.id}` })).statusCode,
        200,
        'control: the owner reads it',
      );
    });

    test('without a key every route is 401', async () => {
      for (const [method, url] of [
        ['GET', '/notification_endpoints'],
        ['POST', '/notification_endpoints'],
        ['GET', `/notification_endpoints/ep_${'0'.repeat(24)}`],
        ['POST', `/notification_deliveries/dlv_${'0'.repeat(24)}/redeliver`],
      ] as const) {
        const res = await app.inject({ method, url: api(url), ...(method === 'POST' ? { payload: {} } : {}) });
        assert.equal(res.statusCode, 401, `${method} ${url}`);
      }
    });

    test('no secret shown by the API reaches a log line', async () => {
      const secrets = (await database.db.selectFrom('notification_endpoints').select('id').execute()).length;
      assert.ok(secrets > 0);
      const shown = [...logs.text.matchAll(/whsec_[A-Za-z0-9_-]+/g)];
      assert.deepEqual(shown, [], 'a signing secret was logged');
      assert.ok(logs.lines.length > 0, 'the app logged at trace level');
    });
  });
}
