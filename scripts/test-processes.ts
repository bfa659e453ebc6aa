/**
 * The test processes of `npm test`: each bundled group file run by node (its tests report in TAP), a few at a
 * time. A process's report is printed whole when it ends, so reports never interleave, and the counts of every
 * report are added up at the end.
 */
import { spawn } from 'node:child_process';

export type ProcessReport = { entry: string; status: number; output: string };

const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'] as const;

/** Work started beside the last entries: once no more than `waiting` of them are still to start. */
export type Beside = { waiting: number; start: () => Promise<ProcessReport[]> };

/**
 * Runs `entries` with at most `slots` processes at once, in their order; `beside.start` is called once only
 * `beside.waiting` entries are left to start (at once when there are no more), and what it returns is awaited
 * with the rest.
 */
export async function runTestProcesses(
  entries: string[],
  slots: number,
  options: { cwd: string; nodeArgs: string[]; beside?: Beside },
): Promise<ProcessReport[]> {
  const queue = [...entries];
  const reports: ProcessReport[] = [];
  let besideRun: Promise<ProcessReport[]> | undefined;
  const startBeside = () => {
    if (options.beside && !besideRun && queue.length <= options.beside.waiting) besideRun = options.beside.start();
  };
  startBeside();
  const slot = async () => {
    for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
      const running = runTestProcess(entry, options);
      startBeside();
      const report = await running;
      process.stdout.write(report.output);
      reports.push(report);
    }
  };
  await Promise.all(Array.from({ length: Math.min(slots, entries.length) }, slot));
  return [...reports, ...((await besideRun) ?? [])];
}

export function runTestProcess(entry: string, options: { cwd: string; nodeArgs: string[] }): Promise<ProcessReport> {
  const child = spawn(process.execPath, [...options.nodeArgs, entry], {
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) =>
    child.on('close', (code, signal) =>
      resolve({ entry, status: code ?? 1, output: signal ? `${output}\n# ${entry} ended by ${signal}\n` : output }),
    ),
  );
}

/** Every report's counts added up, in the TAP comment form node's runner prints, and the files that failed. */
export function summary(reports: ProcessReport[]): string {
  const totals = new Map<string, number>(COUNTS.map((name) => [name, 0]));
  for (const { output } of reports)
    for (const [, name, count] of output.matchAll(/^# (\w+) (\d+)$/gm))
      if (totals.has(name!)) totals.set(name!, totals.get(name!)! + Number(count));
  const failed = reports
    .filter((report) => report.status !== 0)
    .flatMap(({ entry, output }) => {
      const files = [...output.matchAll(/^not ok \d+ - (.+)$/gm)].map(([, name]) => `# failed: ${name}`);
      return files.length ? files : [`# failed: ${entry} (exit without a failed test)`];
    });
  return [`# all ${reports.length} test processes`, ...[...totals].map(([name, n]) => `# ${name} ${n}`), ...failed]
    .join('\n')
    .concat('\n');
}
