/**
 * A burst of payments at one API process while a worker renews subscriptions through a slow gateway link;
 * both processes are SIGKILLed mid-way and started again. Whatever was answered must be stored whole,
 * whatever was cut off must be recoverable without a second charge, and the killed worker's leased jobs
 * must run again once their lease expires.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { retry, startBurst, type BurstRequest } from './support/burst.ts';
import {
  cardPayment,
  deploy,
  NO_RATE_LIMITS,
  postgresUrl,
  postJson,
  PUBLIC_ORIGIN,
  scaleFactor,
  type Deployed,
} from './support/deployment.ts';
import {
  chargeViolations,
  doubleEventViolations,
  jobViolations,
  orderViolations,
  refundViolations,
  sandboxLedger,
  type LedgerCharge,
} from './support/invariants.ts';
import { Processes, until, type CheckoutProcess } from './support/processes.ts';
import { startSlowLink } from './support/relays.ts';
import { jobQueueDrained } from './support/job-queue.ts';
import { freePort } from '../support/ports.ts';

const baseUrl = postgresUrl();
const FACTOR = scaleFactor();
const SUBSCRIPTIONS = 6 * FACTOR;
const BURST = 40 * FACTOR;
const LEASE_SECONDS = 8;
const WORKER_LINK_DELAY_MS = 3_000;

describe(
  'crash recovery: an API process and a worker SIGKILLed mid-burst',
  { skip: baseUrl ? false : 'needs DATABASE_URL (PostgreSQL)', timeout: 240_000 },
  () => {
    let deployed: Deployed;
    let processes: Processes;
    let links: Array<Awaited<ReturnType<typeof startSlowLink>>> = [];
    let gateways: Record<'gateway_a' | 'gateway_b' | 'gateway_c', string>;
    const sandboxUrls = { baseUrlFor: (name: 'gateway_a' | 'gateway_b' | 'gateway_c') => gateways[name] };
    let apiUrl = '';
    let apiPort = 0;
    let apiGateways: Record<string, string> = {};
    const killed: { api?: CheckoutProcess; worker?: CheckoutProcess; workerId?: string } = {};
    let restartedWorker: CheckoutProcess;
    let burst: BurstRequest[] = [];
    let inFlightJobs: number[] = [];

    before(async () => {
      deployed = await deploy(baseUrl!);
      processes = new Processes({
        databaseUrl: deployed.databaseUrl,
        masterKey: deployed.masterKey,
        env: { ...NO_RATE_LIMITS, JOB_LEASE_SECONDS: String(LEASE_SECONDS) },
      });
      const sandboxPort = await freePort();
      apiPort = await freePort();
      apiUrl = `http://127.0.0.1:${apiPort}`;
      gateways = (await processes.sandbox(sandboxPort, apiUrl)).urls;
      const sandboxRoot = `http://127.0.0.1:${sandboxPort}`;
      // Slow links keep requests on the wire when the processes die: the gateway still receives them.
      const apiLink = await startSlowLink(sandboxRoot, 1_500);
      const workerLink = await startSlowLink(sandboxRoot, WORKER_LINK_DELAY_MS);
      links = [apiLink, workerLink];
      apiGateways = viaLink(apiLink.url);
      const [api, worker] = await Promise.all([
        processes.api('api', apiPort, apiGateways),
        processes.worker('worker', viaLink(workerLink.url)),
      ]);
      killed.api = api.process;
      killed.worker = worker.process;
      killed.workerId = worker.workerId;
    });

    after(async () => {
      await processes?.stopAll();
      await Promise.all(links.map((link) => link.close()));
      await deployed?.drop();
    });

    const db = () => deployed.database.db;

    test('the API process and the worker are killed while payments and renewals are in flight, then started again', async () => {
      const subscribed = await Promise.all(
        Array.from({ length: SUBSCRIPTIONS }, async () =>
          postJson(
            `${apiUrl}/api/v1/payments`,
            await cardPayment(sandboxUrls, deployed.merchant, { productId: deployed.merchant.subscriptionProductId }),
            PUBLIC_ORIGIN,
          ),
        ),
      );
      assert.deepEqual(
        subscribed.map((answer) => answer.status),
        subscribed.map(() => 200),
      );
      const running = startBurst(apiUrl, sandboxUrls, deployed.merchant, { count: BURST, concurrency: 6 });
      await until(
        'a quarter of the burst answered',
        () => (running.answered() >= BURST / 4 ? true : undefined),
        60_000,
        20,
      );
      // The renewals fall due now; the worker claims them and waits on its slow gateway link.
      await sql`UPDATE subscriptions SET current_period_end = now(), next_charge_at = now()`.execute(db());
      inFlightJobs = await until(
        'renewals claimed by the worker and charging',
        async () => {
          const leased = await db()
            .selectFrom('jobs')
            .select('id')
            .where('status', '=', 'running')
            .where('type', '=', 'subscriptions.renew')
            .where('locked_by', '=', killed.workerId!)
            .execute();
          const charging = await db().selectFrom('orders').select('id').where('source', '=', 'subscription').execute();
          return leased.length > 0 && charging.length > 0 ? leased.map((job) => job.id) : undefined;
        },
        60_000,
        20,
      );
      killed.api!.kill('SIGKILL');
      killed.worker!.kill('SIGKILL');
      await Promise.all([killed.api!.exited, killed.worker!.exited]);
      await running.stop();
      burst = running.requests;
      assert.ok(
        burst.some((request) => request.answer === undefined),
        'some requests were cut off',
      );
      assert.ok(
        burst.some((request) => request.answer?.status === 200),
        'some requests were answered',
      );
      const stillLeased = await db()
        .selectFrom('jobs')
        .select('id')
        .where('id', 'in', inFlightJobs)
        .where('status', '=', 'running')
        .execute();
      assert.equal(stillLeased.length, inFlightJobs.length, 'the killed worker held its jobs when it died');

      const [, restarted] = await Promise.all([
        processes.api('api-restarted', apiPort, apiGateways),
        processes.worker('worker-restarted', gateways),
      ]);
      restartedWorker = restarted.process;
    });

    test('the jobs leased by the killed worker run again once their lease expires; each renewal is charged once', async () => {
      const rerun = await until(
        'the killed worker’s jobs done',
        async () => {
          const rows = await db()
            .selectFrom('jobs')
            .select(['id', 'status', 'attempts'])
            .where('id', 'in', inFlightJobs)
            .execute();
          return rows.every((row) => row.status === 'done') ? rows : undefined;
        },
        LEASE_SECONDS * 1000 + 60_000,
        250,
      );
      assert.ok(
        rerun.every((row) => row.attempts >= 2),
        `reclaimed after the lease: ${JSON.stringify(rerun)}`,
      );
      const reported = restartedWorker
        .logs()
        .filter((line) => line.msg === 'job done')
        .map((line) => Number(line.jobId));
      assert.ok(
        inFlightJobs.every((id) => reported.includes(id)),
        'the restarted worker ran them',
      );
      const renewed = await until(
        'every subscription renewed',
        async () => {
          const rows = await db()
            .selectFrom('subscriptions')
            .select('id')
            .where('next_charge_at', '>', new Date(Date.now() + 86_400_000))
            .execute();
          return rows.length === SUBSCRIPTIONS ? rows : undefined;
        },
        60_000,
      );
      assert.equal(renewed.length, SUBSCRIPTIONS);
      const renewals = await db()
        .selectFrom('orders as o')
        .innerJoin('payments as p', 'p.order_id', 'o.id')
        .select(['o.parent_order_id', 'o.status', 'p.uid', 'p.status as paymentStatus'])
        .where('o.source', '=', 'subscription')
        .execute();
      assert.equal(renewals.length, SUBSCRIPTIONS, 'one renewal order per subscription');
      assert.ok(renewals.every((row) => row.status === 'paid' && row.paymentStatus === 'paid'));
      const ledger = await sandboxLedger(gateways);
      for (const renewal of renewals)
        assert.equal(
          ledger.filter((charge) => charge.metadata.payment_uid === renewal.uid).length,
          1,
          `renewal ${renewal.uid} charged once`,
        );
    });

    test('every answered payment is stored with a paid order, and its retry replays the answer', async () => {
      const answered = burst.filter((request) => request.answer?.status === 200);
      for (const request of answered) {
        const gatewayId = request.answer!.body.payments[0];
        const stored = await db()
          .selectFrom('payments as p')
          .innerJoin('orders as o', 'o.id', 'p.order_id')
          .select(['p.status', 'o.status as orderStatus'])
          .where('p.gateway_id', '=', gatewayId)
          .execute();
        assert.deepEqual(stored, [{ status: 'paid', orderStatus: 'paid' }], request.key);
        const replay = await retry(apiUrl, request);
        assert.equal(replay.status, 200);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(replay.body, request.answer!.body);
      }
    });

    test('a request cut off mid-flight: 409 while its lock lasts, then it runs once more and is kept; never two charges for one key', async (t) => {
      const cutOff = burst.filter((request) => request.answer === undefined);
      // Keys whose holder died with their lock still well within its 60 seconds (a slow restart may use some up).
      const locked = await db()
        .selectFrom('idempotency_keys')
        .select('key')
        .where('status', '=', 'in_flight')
        .where('locked_until', '>', new Date(Date.now() + 15_000))
        .execute();
      const inFlight = new Set(locked.map((row) => row.key));
      assert.ok(inFlight.size > 0, 'some requests died holding their key');
      for (const request of cutOff) {
        const first = await retry(apiUrl, request);
        if (inFlight.has(request.key)) {
          assert.equal(first.status, 409, `${request.key}: ${JSON.stringify(first.body)}`);
          assert.equal(first.body.code, 'idempotency_key_in_use');
          assert.equal(first.headers.get('retry-after'), '1');
        } else {
          // Never claimed (the request died before the handler), completed just before, or a lock about to end.
          assert.ok(
            [200, 409, 422].includes(first.status),
            `${request.key}: ${first.status} ${JSON.stringify(first.body)}`,
          );
        }
      }
      // The dead holder's 60-second lock runs out (brought forward here), and the next retry takes the key over.
      await sql`UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE status = 'in_flight'`.execute(
        db(),
      );
      const outcomes: Record<string, number> = {};
      for (const request of cutOff) {
        const settled = await retry(apiUrl, request);
        assert.ok(
          [200, 422].includes(settled.status),
          `${request.key}: ${settled.status} ${JSON.stringify(settled.body)}`,
        );
        const again = await retry(apiUrl, request);
        assert.deepEqual(
          [again.status, again.headers.get('idempotent-replayed'), again.body],
          [settled.status, 'true', settled.body],
        );
        outcomes[settled.status] = (outcomes[settled.status] ?? 0) + 1;
      }
      t.diagnostic(`cut off: ${cutOff.length} of ${burst.length}; settled on retry: ${JSON.stringify(outcomes)}`);
      const ledger = await sandboxLedger(gateways);
      for (const request of burst)
        assert.ok((await capturesOfKey(request, ledger)) <= 1, `${request.key} charged more than once`);
    });

    test('no order is half-written, nothing applied twice, every job done, and the gateway agrees', async (t) => {
      await sql`UPDATE jobs SET run_at = now() WHERE status = 'queued' AND type NOT LIKE 'maintenance.%'`.execute(db());
      const settledAt = await jobQueueDrained(db(), 60_000);
      // Intents whose process died before recording the gateway's answer: their recovery jobs (brought
      // forward above) asked the gateway for each; a capture found is now recorded, the rest never reached it.
      const recovered = await db()
        .selectFrom('order_events')
        .select('payment_id')
        .where('type', '=', 'payment.reconciled')
        .execute();
      const unsent = await db()
        .selectFrom('payments')
        .select(['uid', 'order_id'])
        .where('status', '=', 'pending')
        .where('gateway_id', 'is', null)
        .execute();
      const ledger = await sandboxLedger(gateways);
      t.diagnostic(
        `intents cut off by the kill: ${recovered.length} captured at the gateway and recovered, ${unsent.length} never charged and still pending`,
      );
      assert.ok(
        unsent.every((payment) => !ledger.some((charge) => charge.metadata.payment_uid === payment.uid)),
        'no capture is left unrecorded',
      );
      const logs = [killed.worker!, restartedWorker].flatMap((worker) =>
        worker
          .logs()
          .filter((line) => line.msg === 'job done')
          .map((line) => Number(line.jobId)),
      );
      const problems = [
        ...(await orderViolations(deployed.database)),
        ...(await doubleEventViolations(deployed.database)),
        ...(await refundViolations(deployed.database)),
        ...(await chargeViolations(deployed.database, ledger)),
        ...(await jobViolations(deployed.database, logs, settledAt, { killedWorkers: true })),
      ];
      assert.deepEqual(problems, []);
      const unsentKeys = new Set(
        (
          await db()
            .selectFrom('orders as o')
            .innerJoin('customers as c', 'c.id', 'o.customer_id')
            .select('c.email')
            .where('o.id', 'in', unsent.length ? unsent.map((payment) => payment.order_id) : [0])
            .execute()
        ).map((row) => row.email),
      );
      assert.ok(
        [...unsentKeys].every((email) =>
          burst.some((request) => request.email === email && request.answer === undefined),
        ),
        'only cut-off requests leave an intent behind',
      );
      for (const request of burst)
        assert.ok((await capturesOfKey(request, ledger)) <= 1, `${request.key} charged more than once`);
    });

    /** Captured charges at the gateway across every order of the request's customer (one customer per key). */
    async function capturesOfKey(request: BurstRequest, ledger: LedgerCharge[]): Promise<number> {
      const uids = await db()
        .selectFrom('payments as p')
        .innerJoin('orders as o', 'o.id', 'p.order_id')
        .innerJoin('customers as c', 'c.id', 'o.customer_id')
        .select('p.uid')
        .where('c.email', '=', request.email)
        .execute();
      return ledger.filter(
        (charge) => charge.state === 'paid' && uids.some((row) => row.uid === charge.metadata.payment_uid),
      ).length;
    }
  },
);

function viaLink(linkUrl: string): Record<string, string> {
  return { gateway_a: `${linkUrl}/gateway_a`, gateway_b: `${linkUrl}/gateway_b`, gateway_c: `${linkUrl}/gateway_c` };
}
