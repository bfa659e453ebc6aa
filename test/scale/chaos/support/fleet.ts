/**
 * The processes of a chaos run on one PostgreSQL database: standalone sandboxes, API processes
 * (`serve --no-worker`, each on its own port), separate workers, and the balancer the sandboxes send their
 * webhooks through. A kill round SIGKILLs one API process and one worker and starts them again.
 */

import { NO_RATE_LIMITS } from '../../support/deployment.ts';
import { freePort, Processes, type CheckoutProcess } from '../../support/processes.ts';
import { startBalancer, type Balancer } from './balancer.ts';
import type { ChaosPlan } from './plan.ts';

export type GatewayUrls = Record<'gateway_a' | 'gateway_b' | 'gateway_c', string>;
type Api = { name: string; port: number; url: string; process: CheckoutProcess; up: boolean };
type WorkerSlot = { name: string; process: CheckoutProcess };
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

  private startApi(name: string, port: number) {
    return this.processes.api(name, port, this.gateways, { PUBLIC_URL: this.balancer.url });
  }

  private async startWorker(name: string): Promise<CheckoutProcess> {
    const started = await this.processes.worker(name, this.gateways);
    this.workerProcesses.push(started.process);
    return started.process;
  }
}
