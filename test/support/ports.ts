/**
 * Ports for servers a test starts and must name in advance (a child process's PORT, a PUBLIC_URL).
 *
 * A port the kernel hands out for `listen(0)` lies in the ephemeral range, the same range it draws the local
 * ports of outgoing connections from: between the check and the child's own listen, any connection of any
 * process on the machine (to PostgreSQL, to another test's server) may take it, and the child fails with
 * EADDRINUSE. The ports here are drawn below that range, where only another listener can take them.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 20_000;

/** A port on 127.0.0.1 that nothing listens on now, outside the kernel's ephemeral range. */
export async function freePort(): Promise<number> {
  const highest = ephemeralRangeStart() - 1;
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST} and ${highest}`);
}

function ephemeralRangeStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > LOWEST + 1_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
