/**
 * `checkout serve --workers 2`: two API processes on one port, one sandbox in the primary that both use,
 * a replacement for a process that dies, and a clean stop of all of them on SIGTERM.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  cardPayment,
  deploy,
  NO_RATE_LIMITS,
  postgresUrl,
  postJson,
  PUBLIC_ORIGIN,
  type Deployed,
} from './support/deployment.ts';
import { Processes, until, type CheckoutProcess, type LogLine } from './support/processes.ts';
import { freePort } from '../support/ports.ts';

const baseUrl = postgresUrl();

describe('serve --workers 2', { skip: baseUrl ? false : 'needs DATABASE_URL (PostgreSQL)', timeout: 180_000 }, () => {
  let deployed: Deployed;
  let processes: Processes;
  let primary: CheckoutProcess;
  let url = '';
  let gateways: Record<'gateway_a' | 'gateway_b' | 'gateway_c', string>;

  const listeningPids = () =>
    new Set(
      primary
        .logs()
        .filter((line) => line.msg?.startsWith('Server listening'))
        .map((line) => Number(line.pid)),
    );
  const servingPids = (from: LogLine[]) =>
    new Set(from.filter((line) => line.msg === 'request completed').map((line) => Number(line.pid)));

  before(async () => {
    deployed = await deploy(baseUrl!);
    processes = new Processes({
      databaseUrl: deployed.databaseUrl,
      masterKey: deployed.masterKey,
      env: NO_RATE_LIMITS,
    });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    primary = processes.spawn('cluster', ['serve', '--no-worker', '--workers', '2'], {
      PORT: String(port),
      PUBLIC_URL: url,
    });
    const started = await primary.waitForLog((line) => line.msg === 'API processes starting');
    gateways = started.gateways as typeof gateways;
    await until('two processes listening', () => (listeningPids().size === 2 ? true : undefined), 90_000, 250);
  });

  after(async () => {
    await processes?.stopAll();
    await deployed?.drop();
  });

  test('both processes serve requests on the one port', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => fetch(`${url}/readyz`).then((response) => response.status)),
    );
    assert.ok(answers.every((status) => status === 200));
    const serving = await until(
      'both processes logging requests',
      () => (servingPids(primary.logs()).size === 2 ? servingPids(primary.logs()) : undefined),
      10_000,
    );
    assert.deepEqual([...serving].sort(), [...listeningPids()].sort());
    assert.ok(!serving.has(primary.pid), 'the primary serves nothing itself');
  });

  test('a card tokenized at the shared sandbox is charged through either process', async () => {
    const sandboxUrls = { baseUrlFor: (name: 'gateway_a' | 'gateway_b' | 'gateway_c') => gateways[name] };
    const before = primary.logs().length;
    const answers = await Promise.all(
      Array.from({ length: 6 }, async () =>
        postJson(`${url}/api/v1/payments`, await cardPayment(sandboxUrls, deployed.merchant), PUBLIC_ORIGIN),
      ),
    );
    assert.deepEqual(
      answers.map((answer) => [answer.status, answer.body.order_status]),
      answers.map(() => [200, 'paid']),
    );
    const paid = await deployed.database.db
      .selectFrom('payments')
      .select('status')
      .where('status', '=', 'paid')
      .execute();
    assert.equal(paid.length, 6);
    assert.equal(servingPids(primary.logs().slice(before)).size, 2, 'both processes took payments');
  });

  test('a process that dies is replaced; SIGTERM stops the primary and every process', async () => {
    const [victim, survivor] = [...listeningPids()];
    process.kill(victim!, 'SIGKILL');
    await primary.waitForLog(
      (line) => line.msg === 'an API process died; starting a replacement' && line.childPid === victim,
      30_000,
    );
    await until('a replacement listening', () => (listeningPids().size === 3 ? true : undefined), 90_000, 250);
    assert.equal((await fetch(`${url}/readyz`)).status, 200);
    const ended = await primary.stop();
    assert.deepEqual(ended, { code: 0, signal: null }, primary.tail());
    const alive = [...listeningPids()].filter((pid) => pid !== victim && isAlive(pid));
    assert.deepEqual(alive, [], `still running: ${alive.join(', ')} (survivor was ${survivor})`);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
