/**
 * Two API processes and two workers on one PostgreSQL, one standalone sandbox: every request below goes to
 * both API processes at once, every gateway webhook is delivered to both, and the two workers race for the
 * jobs. The database and the sandbox's own ledger must then agree that nothing happened twice.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  cardPayment,
  deploy,
  NO_RATE_LIMITS,
  pixPayment,
  postgresUrl,
  postJson,
  PUBLIC_ORIGIN,
  scaleFactor,
  type Answer,
  type Deployed,
} from './support/deployment.ts';
import {
  chargeViolations,
  doubleEventViolations,
  jobViolations,
  orderViolations,
  refundViolations,
  sandboxLedger,
} from './support/invariants.ts';
import { Processes, until, type CheckoutProcess } from './support/processes.ts';
import { startFanOut } from './support/relays.ts';
import { jobQueueDrained } from './support/job-queue.ts';
import { freePort } from '../support/ports.ts';

const baseUrl = postgresUrl();
const FACTOR = scaleFactor();
const COUNTS = {
  cards: 10 * FACTOR,
  pix: 6 * FACTOR,
  sameKey: 4 * FACTOR,
  refunded: 3 * FACTOR,
  upsells: 2 * FACTOR,
  subscriptions: 4 * FACTOR,
};

describe(
  'scale-out: two API processes and two workers share one PostgreSQL',
  { skip: baseUrl ? false : 'needs DATABASE_URL (PostgreSQL)', timeout: 240_000 },
  () => {
    let deployed: Deployed;
    let processes: Processes;
    let fanOut: Awaited<ReturnType<typeof startFanOut>>;
    let apis: string[] = [];
    let workers: CheckoutProcess[] = [];
    let gateways: Record<'gateway_a' | 'gateway_b' | 'gateway_c', string>;
    const sandboxUrls = { baseUrlFor: (name: 'gateway_a' | 'gateway_b' | 'gateway_c') => gateways[name] };
    const cardPaid: Array<{ paymentId: number; gatewayId: string }> = [];
    const pixIssued: Array<{ gateway: 'gateway_a' | 'gateway_b'; gatewayId: string }> = [];
    const offers: string[] = [];

    before(async () => {
      deployed = await deploy(baseUrl!);
      processes = new Processes({
        databaseUrl: deployed.databaseUrl,
        masterKey: deployed.masterKey,
        env: NO_RATE_LIMITS,
      });
      const [sandboxPort, portA, portB] = [await freePort(), await freePort(), await freePort()];
      apis = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
      fanOut = await startFanOut(apis);
      gateways = (await processes.sandbox(sandboxPort, fanOut.url)).urls;
      const started = await Promise.all([
        processes.api('api-a', portA, gateways),
        processes.api('api-b', portB, gateways),
        processes.worker('worker-1', gateways),
        processes.worker('worker-2', gateways),
      ]);
      workers = [started[2].process, started[3].process];
    });

    after(async () => {
      await processes?.stopAll();
      await fanOut?.close();
      await deployed?.drop();
    });

    const api = (index: number) => apis[index % 2]!;
    const pay = (index: number, body: unknown, headers: Record<string, string> = {}) =>
      postJson(`${api(index)}/api/v1/payments`, body, { ...PUBLIC_ORIGIN, ...headers });
    /** What a failed wait shows: the unfinished jobs, the subscriptions and the workers' warnings and errors. */
    const diagnosis = async () => {
      const db = deployed.database.db;
      const jobs = await db
        .selectFrom('jobs')
        .select(['id', 'type', 'status', 'run_at', 'attempts', 'last_error'])
        .where('status', '!=', 'done')
        .execute();
      const subscriptions = await db
        .selectFrom('subscriptions')
        .select(['id', 'status', 'next_charge_at', 'current_period_end', 'failed_attempts'])
        .execute();
      const complaints = workers.flatMap((worker) =>
        worker
          .logs()
          .filter((line) => (line.level ?? 0) >= 40)
          .map((line) => `${worker.name}: ${JSON.stringify(line)}`),
      );
      const states = workers.map(
        (worker) => `${worker.name} ${worker.running ? 'running' : 'exited'}:\n${worker.tail(5)}`,
      );
      return [JSON.stringify({ jobs, subscriptions }), ...complaints.slice(-20), ...states].join('\n');
    };
    const paymentIdOf = async (gatewayId: string) =>
      (
        await deployed.database.db
          .selectFrom('payments')
          .select('id')
          .where('gateway_id', '=', gatewayId)
          .executeTakeFirstOrThrow()
      ).id;

    test('card, pix and subscription payments, and one idempotency key sent to both processes at once', async () => {
      const { merchant } = deployed;
      const cards = Array.from({ length: COUNTS.cards }, async (_, index) => {
        const answer = await pay(index, await cardPayment(sandboxUrls, merchant), {
          'idempotency-key': `card-${index}`,
        });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.body.order_status, 'paid');
        cardPaid.push({ gatewayId: answer.body.payments[0], paymentId: await paymentIdOf(answer.body.payments[0]) });
      });
      const pix = Array.from({ length: COUNTS.pix }, async (_, index) => {
        const gateway = index % 2 === 0 ? 'gateway_a' : 'gateway_b';
        const answer = await pay(index, pixPayment(merchant, gateway));
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.body.order_status, 'waiting_payment');
        pixIssued.push({ gateway, gatewayId: answer.body.payments[0] });
      });
      const subscriptions = Array.from({ length: COUNTS.subscriptions }, async (_, index) => {
        const answer = await pay(
          index,
          await cardPayment(sandboxUrls, merchant, { productId: merchant.subscriptionProductId }),
        );
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.body.is_subscription, true);
      });
      const upsellOrders = Array.from({ length: COUNTS.upsells }, async (_, index) => {
        const answer = await pay(index, await cardPayment(sandboxUrls, merchant, { pageId: merchant.upsellPageId }));
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.ok(answer.body.offer);
        offers.push(answer.body.offer);
      });
      const sameKey = Array.from({ length: COUNTS.sameKey }, async (_, index) => {
        const body = await cardPayment(sandboxUrls, merchant);
        const key = { 'idempotency-key': `both-${index}` };
        const answers = await Promise.all([pay(0, body, key), pay(1, body, key)]);
        assertOneRanTheOtherWaitedOrReplayed(answers);
        const original = answers.find((answer) => answer.status === 200 && !answer.headers.get('idempotent-replayed'))!;
        // Once it is done, both processes replay the one result.
        for (const replay of await Promise.all([pay(0, body, key), pay(1, body, key)])) {
          assert.equal(replay.status, 200);
          assert.equal(replay.headers.get('idempotent-replayed'), 'true');
          assert.deepEqual(replay.body, original.body);
        }
        const orders = await deployed.database.db
          .selectFrom('payments')
          .select('order_id')
          .where('gateway_id', '=', original.body.payments[0])
          .execute();
        assert.equal(orders.length, 1);
      });
      await Promise.all([...cards, ...pix, ...subscriptions, ...upsellOrders, ...sameKey]);
      const keys = await deployed.database.db
        .selectFrom('idempotency_keys')
        .select(['key', 'status'])
        .where('key', 'like', 'both-%')
        .execute();
      assert.equal(keys.length, COUNTS.sameKey);
      assert.ok(keys.every((key) => key.status === 'completed'));
    });

    test('pix confirmed at the gateway: each webhook reaches both processes and is applied once', async () => {
      await Promise.all(
        pixIssued.map(async ({ gateway, gatewayId }) => {
          const confirmed = await postJson(`${gateways[gateway]}/sandbox/charges/${gatewayId}/confirm`, {});
          assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
        }),
      );
      const db = deployed.database.db;
      const paid = await until('every pix paid', async () => {
        const rows = await db.selectFrom('payments').select('status').where('method', '=', 'pix').execute();
        return rows.length === COUNTS.pix && rows.every((row) => row.status === 'paid') ? rows : undefined;
      });
      assert.equal(paid.length, COUNTS.pix);
      const pixDeliveries = fanOut.deliveries.filter((delivery) => delivery.statuses.every((status) => status === 200));
      assert.ok(pixDeliveries.length >= COUNTS.pix, `${pixDeliveries.length} deliveries accepted by both processes`);
      const stored = await db
        .selectFrom('webhook_events')
        .select(['receiver', 'external_event_id', 'status'])
        .execute();
      assert.equal(
        new Set(stored.map((event) => `${event.receiver}:${event.external_event_id}`)).size,
        stored.length,
        'each event stored once',
      );
    });

    test('partial refunds racing on one payment at both processes never exceed the capture', async () => {
      const { merchant } = deployed;
      const targets = cardPaid.slice(0, COUNTS.refunded);
      await Promise.all(
        targets.map(async ({ paymentId }) => {
          // R$ 100,00 captured, five refunds of R$ 30,00: exactly three fit.
          const answers = await Promise.all(
            Array.from({ length: 5 }, (_, index) =>
              postJson(
                `${api(index)}/api/v1/payments/${paymentId}/refund`,
                { amount: 30 },
                { authorization: `Bearer ${merchant.apiKey}` },
              ),
            ),
          );
          const statuses = answers.map((answer) => answer.status).sort();
          assert.deepEqual(statuses, [200, 200, 200, 422, 422], JSON.stringify(answers.map((answer) => answer.body)));
        }),
      );
      const rows = await deployed.database.db
        .selectFrom('payments')
        .select(['refunded_cents', 'status'])
        .where(
          'id',
          'in',
          targets.map((target) => target.paymentId),
        )
        .execute();
      assert.deepEqual(
        rows.map((row) => [row.refunded_cents, row.status]),
        targets.map(() => [9_000, 'partially_refunded']),
      );
    });

    test('one upsell offer redeemed at both processes at once is charged once', async () => {
      await Promise.all(
        offers.map(async (offer) => {
          const answers = await Promise.all(
            Array.from({ length: 4 }, (_, index) =>
              postJson(`${api(index)}/api/v1/upsell`, { offer }, { origin: 'https://elsewhere.example' }),
            ),
          );
          const statuses = answers.map((answer) => answer.status).sort();
          assert.deepEqual(statuses, [200, 422, 422, 422], JSON.stringify(answers.map((answer) => answer.body)));
        }),
      );
      const upsellOrders = await deployed.database.db
        .selectFrom('orders')
        .select(['status'])
        .where('source', '=', 'upsell')
        .execute();
      assert.deepEqual(
        upsellOrders.map((order) => order.status),
        offers.map(() => 'paid'),
      );
    });

    test('renewals due now are charged once each by two racing workers', async () => {
      const db = deployed.database.db;
      const subscriptions = await db.selectFrom('subscriptions').select(['id', 'current_period_end']).execute();
      assert.equal(subscriptions.length, COUNTS.subscriptions);
      // The period ends now: both workers' ticks see the renewal due and race to enqueue and run it.
      await sql`UPDATE subscriptions SET current_period_end = now(), next_charge_at = now()`.execute(db);
      const renewed = await until(
        'every subscription renewed',
        async () => {
          const rows = await db
            .selectFrom('subscriptions')
            .select(['id', 'next_charge_at', 'current_period_start'])
            .where('next_charge_at', '>', new Date(Date.now() + 86_400_000))
            .execute();
          return rows.length === COUNTS.subscriptions ? rows : undefined;
        },
        60_000,
      ).catch(async (error) => {
        throw new Error(`${(error as Error).message}\n${await diagnosis()}`);
      });
      assert.equal(renewed.length, COUNTS.subscriptions);
      const renewals = await db
        .selectFrom('orders as o')
        .innerJoin('payments as p', 'p.order_id', 'o.id')
        .select(['o.parent_order_id', 'o.status', 'p.status as payment_status'])
        .where('o.source', '=', 'subscription')
        .execute();
      assert.equal(renewals.length, COUNTS.subscriptions, 'one renewal order per subscription');
      assert.equal(new Set(renewals.map((row) => row.parent_order_id)).size, COUNTS.subscriptions);
      assert.ok(renewals.every((row) => row.status === 'paid' && row.payment_status === 'paid'));
    });

    test('the database agrees with the gateway: no double charge, no event applied twice, every job done once', async () => {
      const db = deployed.database.db;
      // Jobs scheduled for later (webhook safety nets, old renewal dates, pix expiry) are brought forward so the
      // two workers race for every one of them now.
      await sql`UPDATE jobs SET run_at = now() WHERE status = 'queued' AND type NOT LIKE 'maintenance.%'`.execute(db);
      const settledAt = await jobQueueDrained(db, 60_000);
      const ledger = await sandboxLedger(gateways);
      const problems = [
        ...(await chargeViolations(deployed.database, ledger)),
        ...(await refundViolations(deployed.database)),
        ...(await doubleEventViolations(deployed.database)),
        ...(await orderViolations(deployed.database)),
        ...(await jobViolations(deployed.database, jobsReportedDone(workers), settledAt)),
      ];
      assert.deepEqual(problems, []);

      const captured = ledger.filter((charge) => charge.state === 'paid');
      const expected = COUNTS.cards + COUNTS.pix + COUNTS.subscriptions * 2 + COUNTS.upsells * 2 + COUNTS.sameKey;
      assert.equal(captured.length, expected, 'one capture per payment, none twice');
      const byWorker = workers.map((worker) => worker.logs().filter((line) => line.msg === 'job done').length);
      assert.ok(
        byWorker.every((count) => count > 0),
        `both workers ran jobs: ${byWorker.join(', ')}`,
      );
    });
  },
);

/** Of two simultaneous requests with one key, exactly one ran; the other was told to wait (409) or replayed it. */
function assertOneRanTheOtherWaitedOrReplayed(answers: Answer[]): void {
  const ran = answers.filter((answer) => answer.status === 200 && answer.headers.get('idempotent-replayed') === null);
  assert.equal(ran.length, 1, JSON.stringify(answers.map((answer) => [answer.status, answer.body])));
  const other = answers.find((answer) => answer !== ran[0])!;
  if (other.status === 409) {
    assert.equal(other.body.code, 'idempotency_key_in_use');
    assert.equal(other.headers.get('retry-after'), '1');
  } else {
    assert.equal(other.status, 200);
    assert.equal(other.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(other.body, ran[0]!.body);
  }
}

/** The job id of every "job done" line the workers logged. */
function jobsReportedDone(workers: CheckoutProcess[]): number[] {
  return workers.flatMap((worker) =>
    worker
      .logs()
      .filter((line) => line.msg === 'job done')
      .map((line) => Number(line.jobId)),
  );
}
