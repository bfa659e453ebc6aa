/**
 * The chaos suite: API processes, separate workers and standalone gateway sandboxes on one fresh PostgreSQL
 * database, under mixed load (card pays on checkout pages, carts and charges, pix and boleto paid at the
 * sandbox, refunds, concurrent pays on one charge or cart, malformed requests), with SIGKILL rounds of API
 * processes and workers. Once the system has settled, every sandbox ledger is reconciled with the service's
 * records and every acknowledged answer with what happened. CHAOS_LONG=1 runs the long variant
 * (docs/scaling.md); CHAOS_SEED replays a run's mix of operations; CHAOS_REPORT=<file> writes every request, its
 * answer and the problems found as JSON.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postgresUrl } from '../support/deployment.ts';
import { doubleEventViolations, jobViolations, orderViolations } from '../support/invariants.ts';
import { Fleet } from './support/fleet.ts';
import { runLoad } from './support/load.ts';
import { deployChaos, type ChaosDeployment } from './support/merchants.ts';
import { chaosPlan, singleCaptureForced } from './support/plan.ts';
import { chaosSeed, Random } from './support/random.ts';
import { answerViolations, singleCaptureViolations } from './support/reconcile-answers.ts';
import { ledgerViolations, orderMoneyViolations } from './support/reconcile-ledger.ts';
import { readLedgers, readRecords } from './support/records.ts';
import { settle, type Settled } from './support/settle.ts';
import { summarise } from './support/summary.ts';
import { Traffic, writeReport } from './support/traffic.ts';
import type { Workload } from './support/operations.ts';

const baseUrl = postgresUrl();
const plan = chaosPlan();
const seed = chaosSeed();

describe(
  `chaos (${plan.name}): ${plan.apis} API processes, ${plan.workers} workers, ${plan.sandboxes} sandboxes, ${plan.killRounds} SIGKILL rounds`,
  { skip: baseUrl ? false : 'needs DATABASE_URL (PostgreSQL)', timeout: plan.timeoutMs },
  () => {
    let deployment: ChaosDeployment;
    let fleet: Fleet;
    let work: Workload;
    let settled: Settled;
    let loadMs = 0;

    before(async () => {
      deployment = await deployChaos(baseUrl!, plan.merchants);
      fleet = new Fleet(plan, deployment);
      await fleet.start();
      work = {
        database: deployment.database,
        traffic: new Traffic(fleet),
        fleet,
        merchants: deployment.merchants,
        random: new Random(seed),
        paidCards: [],
      };
    });

    after(async () => {
      await fleet?.stop();
      await deployment?.drop();
    });

    test('the mixed load runs through every kill round', async (t) => {
      const started = Date.now();
      const { kills, faults } = await runLoad(work, plan);
      loadMs = Date.now() - started;
      t.diagnostic(`seed ${seed} (CHAOS_SEED=${seed} replays this mix)`);
      assert.deepEqual(faults, [], 'the test’s own requests (tokens, sandbox actions) all worked');
      assert.equal(kills.length, plan.killRounds);
      const cut = work.traffic.exchanges.filter((exchange) => exchange.error !== undefined).length;
      t.diagnostic(
        `kills: ${kills.map((kill) => `${kill.api}+${kill.worker} (back in ${kill.restartedInMs} ms)`).join(', ')}; ${cut} requests cut off`,
      );
    });

    test('the system settles: every recovery and safety net has run', async (t) => {
      settled = await settle(deployment.database, { timeoutMs: plan.leaseSeconds * 1000 + 90_000 });
      t.diagnostic(`settled in ${settled.passes} passes`);
    });

    test('every sandbox ledger agrees with the records, and every acknowledged answer with what happened', async (t) => {
      const ledger = await readLedgers(fleet.sandboxRoots);
      const records = await readRecords(deployment.database);
      const inUse = new Set(Object.values(fleet.gateways));
      const books = ledgerViolations(ledger, records, inUse);
      const answers = answerViolations(work.traffic.exchanges, records, ledger);
      const doneLogs = fleet.workerProcesses.flatMap((worker) =>
        worker
          .logs()
          .filter((line) => line.msg === 'job done')
          .map((line) => Number(line.jobId)),
      );
      // orderViolations' own coverage rule counts a voided capture as kept; orderMoneyViolations replaces it.
      const trails = (await orderViolations(deployment.database)).filter(
        (problem) => !/ with \d+ of \d+ cents captured$| waits with no payment waiting$/.test(problem),
      );
      const groupRefusals = work.traffic.exchanges.filter(
        (exchange) => exchange.facts.group !== undefined && exchange.status === 409,
      ).length;
      const singleCapture = singleCaptureForced() || groupRefusals > 0;
      const problems = [
        ...books.problems,
        ...orderMoneyViolations(records),
        ...answers.problems,
        ...trails,
        ...(await doubleEventViolations(deployment.database)),
        ...(await jobViolations(deployment.database, doneLogs, settled.at, { killedWorkers: true })),
        ...(singleCapture ? singleCaptureViolations(work.traffic.exchanges, records, ledger) : []),
      ];
      if (process.env.CHAOS_REPORT) writeReport(process.env.CHAOS_REPORT, work.traffic, problems);
      for (const line of summarise({ plan, seed, loadMs, fleet, traffic: work.traffic, books, answers, singleCapture }))
        t.diagnostic(line);
      assert.deepEqual(problems, []);
      assert.ok(books.tally.captures > 0 && answers.tally.paidAnswers > 0, 'the load captured money');
    });
  },
);
