/** Checkout processes for the benchmarks that run the service or the gateway sandboxes as processes of their own. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../test/support/ports.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** `node bin/checkout.js <args>` with `env` added to this process's environment. */
export function start(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // stdout is read and discarded (the API logs every request at info, as in production).
  return spawn(process.execPath, [join(ROOT, 'bin/checkout.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The sandbox prints its URLs as one JSON object once it listens. */
export async function sandboxUrls(child: ChildProcess): Promise<Record<string, string>> {
  let text = '';
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`checkout sandbox exited ${code}: ${text}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const start = text.indexOf('{');
      try {
        if (start >= 0) resolve((JSON.parse(text.slice(start)) as { gateways: Record<string, string> }).gateways);
      } catch {
        // not the whole object yet
      }
    });
  });
}

export async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** `checkout sandbox` as a process of its own (as a gateway is a service of its own), with its URLs. */
export async function startSandboxProcess(
  serviceUrl: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ urls: { gateway_a: string; gateway_b: string; gateway_c: string }; pid: number; close(): Promise<void> }> {
  const child = start(['sandbox', '--port', String(await freePort()), '--service-url', serviceUrl], env);
  child.stderr!.resume();
  try {
    const urls = (await sandboxUrls(child)) as { gateway_a: string; gateway_b: string; gateway_c: string };
    return { urls, pid: child.pid!, close: () => stop(child) };
  } catch (error) {
    await stop(child);
    throw error;
  }
}
