/** Real `checkout` processes for the scale and crash tests: API servers, workers and a standalone sandbox. */

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '../../../bin/checkout.js');
const STARTUP_MS = 90_000;

export type LogLine = { level?: number; msg?: string; [field: string]: unknown };

/** One spawned `checkout` command: its output as lines, and ways to wait for, signal and reap it. */
export class CheckoutProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;
  private partial = '';

  constructor(
    readonly name: string,
    args: string[],
    env: NodeJS.ProcessEnv,
  ) {
    this.child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk: Buffer) => {
      const text = this.partial + chunk.toString('utf8');
      const parts = text.split('\n');
      this.partial = parts.pop() ?? '';
      this.lines.push(...parts.filter(Boolean));
    };
    this.child.stdout!.on('data', collect);
    this.child.stderr!.on('data', collect);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The pino JSON lines (anything else, such as a printed banner, is skipped). */
  logs(): LogLine[] {
    return this.lines.flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });
  }

  async waitForLog(predicate: (line: LogLine) => boolean, timeoutMs = STARTUP_MS): Promise<LogLine> {
    return until(
      `${this.name}: log line`,
      () => {
        if (!this.running) throw new Error(`${this.name} exited early:\n${this.tail()}`);
        return this.logs().find(predicate);
      },
      timeoutMs,
    );
  }

  kill(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGTERM, then SIGKILL if it has not drained in time; resolves with how it ended. */
  async stop(timeoutMs = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.kill('SIGTERM');
    const timer = setTimeout(() => this.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  tail(count = 20): string {
    return this.lines.slice(-count).join('\n');
  }
}

/** Polls `probe` until it returns a value; throws with `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export type Deployment = {
  databaseUrl: string;
  masterKey: string;
  /** Extra variables for every process (e.g. generous rate limits). */
  env?: NodeJS.ProcessEnv;
};

/** Starts and tracks processes of one deployment; `stopAll` reaps whatever is still running. */
export class Processes {
  private readonly started: CheckoutProcess[] = [];

  constructor(private readonly deployment: Deployment) {}

  private env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: this.deployment.databaseUrl,
      MASTER_KEY: this.deployment.masterKey,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'checkout-scale-')),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DB_POOL_SIZE: '5',
      ...this.deployment.env,
      ...extra,
    };
  }

  spawn(name: string, args: string[], env: NodeJS.ProcessEnv = {}): CheckoutProcess {
    const started = new CheckoutProcess(name, args, this.env(env));
    this.started.push(started);
    return started;
  }

  /** The three sandboxes standalone on `port`, sending webhooks to `serviceUrl`; resolves once they answer. */
  async sandbox(
    port: number,
    serviceUrl: string,
  ): Promise<{ process: CheckoutProcess; urls: Record<'gateway_a' | 'gateway_b' | 'gateway_c', string> }> {
    const started = this.spawn('sandbox', ['sandbox', '--port', String(port), '--service-url', serviceUrl]);
    const root = `http://127.0.0.1:${port}`;
    await until('the sandbox', () => answers(`${root}/gateway_a/sandbox/webhooks`, started), STARTUP_MS, 250);
    return {
      process: started,
      urls: { gateway_a: `${root}/gateway_a`, gateway_b: `${root}/gateway_b`, gateway_c: `${root}/gateway_c` },
    };
  }

  /** `checkout serve --no-worker` on `port`; resolves once /readyz answers 200. */
  async api(
    name: string,
    port: number,
    gateways: Record<string, string>,
    env: NodeJS.ProcessEnv = {},
  ): Promise<{ process: CheckoutProcess; url: string }> {
    const url = `http://127.0.0.1:${port}`;
    const started = this.spawn(name, ['serve', '--no-worker'], {
      PORT: String(port),
      PUBLIC_URL: url,
      ...gatewayEnv(gateways),
      ...env,
    });
    await until(`${name} ready`, () => answers(`${url}/readyz`, started), STARTUP_MS, 250);
    return { process: started, url };
  }

  /** `checkout worker`; resolves with its worker id once it has started. */
  async worker(
    name: string,
    gateways: Record<string, string>,
    env: NodeJS.ProcessEnv = {},
  ): Promise<{ process: CheckoutProcess; workerId: string }> {
    const started = this.spawn(name, ['worker'], { ...gatewayEnv(gateways), ...env });
    const line = await started.waitForLog((log) => log.msg === 'worker started');
    return { process: started, workerId: String(line.workerId) };
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.started.filter((child) => child.running).map((child) => child.stop(10_000)));
  }
}

function gatewayEnv(gateways: Record<string, string>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(gateways).map(([name, url]) => [`${name.toUpperCase()}_URL`, url]));
}

async function answers(url: string, child: CheckoutProcess): Promise<true | undefined> {
  if (!child.running) throw new Error(`${child.name} exited early:\n${child.tail()}`);
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200 ? true : undefined;
  } catch {
    return undefined;
  }
}
