/** The real `checkout` command as child processes: a running service, and CLI commands that talk to it. */

import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.ts';

export const BIN = join(import.meta.dirname, '../../bin/checkout.js');
const run = promisify(execFile);

/** A child process whose output is kept line by line, with a wait for a line that matches. */
export class Child {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private readonly waiters = new Set<() => void>();

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    let pending = '';
    const take = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop()!;
      this.lines.push(...parts);
      for (const wake of this.waiters) wake();
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /** The first output line matching `pattern`; rejects after `timeoutMs` with the output so far. */
  waitFor(pattern: RegExp, timeoutMs = 90_000): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        for (const line of this.lines) {
          const match = pattern.exec(line);
          if (match) {
            clearTimeout(timer);
            this.waiters.delete(check);
            return resolve(match);
          }
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no line matching ${pattern} in:\n${this.lines.join('\n')}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }
}

/** `checkout start` on a fresh PGlite directory and a free port: the service as `npm start` runs it. */
export async function startService(extraEnv: NodeJS.ProcessEnv = {}) {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: '',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'checkout-service-')),
    MASTER_KEY: randomBytes(32).toString('hex'),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const service = new Child(spawn(process.execPath, [BIN, 'start'], { env }));
  await service.waitFor(/Checkout service listening/, 120_000);
  return {
    env,
    url: `http://127.0.0.1:${port}`,
    service,
    /** Starts a long-running CLI command against this service. */
    spawnCli: (...args: string[]) => new Child(spawn(process.execPath, [BIN, ...args], { env })),
    /** Runs a CLI command to its end; rejects (with `code`, `stdout`, `stderr`) on a non-zero exit. */
    cli: (...args: string[]) => run(process.execPath, [BIN, ...args], { env, timeout: 120_000 }),
    async stop() {
      service.child.kill('SIGTERM');
      await service.exited;
    },
  };
}

export type RunningService = Awaited<ReturnType<typeof startService>>;
