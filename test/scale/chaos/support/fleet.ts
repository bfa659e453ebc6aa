/**
 * The processes of a chaos run on one PostgreSQL database: standalone sandboxes, API processes
 * (`serve --no-worker`, each on its own port), separate workers, and the balancer the sandboxes send their
 * webhooks through. A kill round SIGKILLs one API process and one worker and starts them again.
 */

import { NO_RATE_LIMITS } from '../../support/deployment.ts';
import { Processes, until, type CheckoutProcess } from '../../support/processes.ts';
import { startBalancer, type Balancer } from './balancer.ts';
import type { ChaosPlan } from './plan.ts';
import { freePort } from '../../../support/ports.ts';

export type GatewayUrls = Record<'gateway_a' | 'gateway_b' | 'gateway_c', string>;
type Api = { name: string; port: number; url: string; process: CheckoutProcess; up: boolean };
type WorkerSlot = { name: string; process: CheckoutProcess };
/** A process starting on a machine whose cores other work also uses can take minutes to be ready. */
const STARTUP_MS = 240_000;
export type KillRecord = { round: number; api: string; worker: string; restartedInMs: number };

export class Fleet {
  readonly apis: Api[] = [];
  readonly workers: WorkerSlot[] = [];
  /** Every worker process ever started, killed ones included: their logs say which jobs each did. */
  readonly workerProcesses: CheckoutProcess[] = [];
  readonly kills: KillRecord[] = [];
  gateways!: GatewayUrls;
  /** The root URL of each sandbox process, for its ledger. */
  sandboxRoots: string[] = [];
  balancer!: Balancer;
  private readonly processes: Processes;
  private restarts = 0;

  constructor(
    private readonly plan: ChaosPlan,
    deployment: { databaseUrl: string; masterKey: string },
  ) {
    this.processes = new Processes({
      ...deployment,
      env: { ...NO_RATE_LIMITS, JOB_LEASE_SECONDS: String(plan.leaseSeconds), LOG_LEVEL: 'info' },
    });
  }

  async start(): Promise<void> {
    this.balancer = await startBalancer(() => this.liveApiUrls());
    const sandboxes = await Promise.all(
      Array.from({ length: this.plan.sandboxes }, async () =>
        this.processes.sandbox(await freePort(), this.balancer.url),
      ),
    );
    this.sandboxRoots = sandboxes.map((sandbox) => sandbox.urls.gateway_a.replace(/\/gateway_a$/, ''));
    // With three sandbox processes each gateway lives in its own; with one, all three share it.
    this.gateways = {
      gateway_a: sandboxes[0]!.urls.gateway_a,
      gateway_b: sandboxes[1 % sandboxes.length]!.urls.gateway_b,
      gateway_c: sandboxes[2 % sandboxes.length]!.urls.gateway_c,
    };
    const ports = await Promise.all(Array.from({ length: this.plan.apis }, () => freePort()));
    await Promise.all([
      ...ports.map(async (port, index) => {
        const name = `api-${index + 1}`;
        const started = await this.startApi(name, port);
        this.apis.push({ name, port, url: started.url, process: started.process, up: true });
      }),
      ...Array.from({ length: this.plan.workers }, async (_, index) => {
        const name = `worker-${index + 1}`;
        this.workers.push({ name, process: await this.startWorker(name) });
      }),
    ]);
    this.apis.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The API processes a client may send to now (a killed one is taken out before it dies). */
  liveApiUrls(): string[] {
    return this.apis.filter((api) => api.up).map((api) => api.url);
  }

  /** SIGKILLs API process `round % apis` and worker `round % workers` together, then starts both again. */
  async killRound(round: number): Promise<KillRecord> {
    const api = this.apis[round % this.apis.length]!;
    const worker = this.workers[round % this.workers.length]!;
    api.up = false;
    api.process.kill('SIGKILL');
    worker.process.kill('SIGKILL');
    await Promise.all([api.process.exited, worker.process.exited]);
    const started = Date.now();
    const [restartedApi, restartedWorker] = await Promise.all([
      this.startApi(`${api.name}-r${++this.restarts}`, api.port),
      this.startWorker(`${worker.name}-r${this.restarts}`),
    ]);
    api.process = restartedApi.process;
    api.up = true;
    worker.process = restartedWorker;
    const record = { round, api: api.name, worker: worker.name, restartedInMs: Date.now() - started };
    this.kills.push(record);
    return record;
  }

  async stop(): Promise<void> {
    await this.processes.stopAll();
    await this.balancer?.close();
  }

  private gatewayEnv(): NodeJS.ProcessEnv {
    return Object.fromEntries(
      Object.entries(this.gateways).map(([gateway, url]) => [`${gateway.toUpperCase()}_URL`, url]),
    );
  }

  private async startApi(name: string, port: number): Promise<{ process: CheckoutProcess; url: string }> {
    const url = `http://127.0.0.1:${port}`;
    const started = this.processes.spawn(name, ['serve', '--no-worker'], {
      PORT: String(port),
      PUBLIC_URL: this.balancer.url,
      ...this.gatewayEnv(),
    });
    await until(`${name} ready`, () => ready(`${url}/readyz`, started), STARTUP_MS, 250);
    return { process: started, url };
  }

  private async startWorker(name: string): Promise<CheckoutProcess> {
    const started = this.processes.spawn(name, ['worker'], this.gatewayEnv());
    this.workerProcesses.push(started);
    await started.waitForLog((line) => line.msg === 'worker started', STARTUP_MS);
    return started;
  }
}

async function ready(url: string, started: CheckoutProcess): Promise<true | undefined> {
  if (!started.running) throw new Error(`${started.name} exited early:\n${started.tail()}`);
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200 ? true : undefined;
  } catch {
    return undefined;
  }
}
