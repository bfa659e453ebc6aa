/**
 * CPU by process while one load runs alone: PostgreSQL (every `postgres` process of the server), this
 * process (the service and the load generator), named child processes (a gateway sandbox), and what the
 * whole machine left idle. Read from /proc, so Linux only; elsewhere the figures are absent, not wrong.
 * It tells whether a case is bound by CPU (little idle) and where its CPU per unit of work goes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Load, Measurement } from './load.ts';
import { measure } from './load.ts';

const TICKS_PER_SECOND = 100;

type Reading = { postgres: number; children: Record<string, number>; busy: number; idle: number };

export type CpuByProcess = Measurement & {
  /** Milliseconds of CPU per request. */
  postgresMs: number;
  thisProcessMs: number;
  childrenMs: Record<string, number>;
  /** Cores in use and left idle over the whole machine during the load. */
  busyCores: number;
  idleCores: number;
};

/** utime and stime (fields 14 and 15), plus cutime and cstime (16, 17) when `withReaped`. */
function processTicks(pid: string, withReaped = false): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return withReaped ? own + Number(fields[13]) + Number(fields[14]) : own;
}

/**
 * The server's CPU: every live `postgres` process, plus what the postmaster's exited children used
 * (counted in its reaped-children time), so a backend that closes during the load is not lost.
 */
function postgresTicks(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      // Backends retitle themselves `postgres: …`; the postmaster keeps its path, `…/bin/postgres`.
      if (command.startsWith('postgres') || command.split('\0')[0]!.endsWith('/bin/postgres'))
        ticks += processTicks(pid, true);
    } catch {
      // the process exited between the listing and the read
    }
  }
  return ticks;
}

function read(children: Record<string, number>): Reading {
  const [user, nice, system, idle, iowait, irq, softirq] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const childTicks: Record<string, number> = {};
  for (const [name, pid] of Object.entries(children)) childTicks[name] = processTicks(String(pid));
  return {
    postgres: postgresTicks(),
    children: childTicks,
    busy: user! + nice! + system! + irq! + softirq!,
    idle: idle! + iowait!,
  };
}

/** `load` alone for `seconds`, with CPU per request by process; `children` names the pids to follow. */
export async function measureCpuByProcess(
  load: Load,
  seconds: number,
  children: Record<string, number> = {},
): Promise<CpuByProcess | undefined> {
  if (process.platform !== 'linux') return undefined;
  const before = read(children);
  const own = process.cpuUsage();
  const measured = await measure(load, seconds);
  const ownUs = process.cpuUsage(own);
  const after = read(children);
  const perRequest = (ticks: number) =>
    Number((((ticks / TICKS_PER_SECOND) * 1000) / Math.max(1, measured.requests)).toFixed(2));
  const cores = (ticks: number) => Number((ticks / TICKS_PER_SECOND / seconds).toFixed(2));
  return {
    ...measured,
    postgresMs: perRequest(after.postgres - before.postgres),
    thisProcessMs: Number(((ownUs.user + ownUs.system) / 1000 / Math.max(1, measured.requests)).toFixed(2)),
    childrenMs: Object.fromEntries(
      Object.keys(children).map((name) => [name, perRequest(after.children[name]! - before.children[name]!)]),
    ),
    busyCores: cores(after.busy - before.busy),
    idleCores: cores(after.idle - before.idle),
  };
}

export function printCpuTable(title: string, rows: CpuByProcess[]): void {
  console.log(`\n${title}`);
  console.table(
    rows.map((row) => ({
      case: row.label,
      'req/s': row.reqPerSec,
      'PostgreSQL ms/req': row.postgresMs,
      'this process ms/req': row.thisProcessMs,
      ...Object.fromEntries(Object.entries(row.childrenMs).map(([name, ms]) => [`${name} ms/req`, ms])),
      'busy cores': row.busyCores,
      'idle cores': row.idleCores,
    })),
  );
}
