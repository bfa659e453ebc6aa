/**
 * `npm test`: every test file, on node's test runner, in a few processes instead of one each.
 *
 * Starting a process per file cost more CPU than most files' own tests: node, the TypeScript loader, the app's
 * modules and PGlite's WebAssembly compiled again each time. Files are dealt into groups; each group is one test
 * process that runs its files one after another, each file as a suite named after it. The processes run esbuild
 * bundles of the files (test-results/test-build, with source maps), not the sources through tsx.
 * Files that spawn services and wait on them run each in a process of its own (ISOLATED), between the groups.
 * The load test runs for a fixed time whatever CPU it gets: it starts beside the last groups (LOAD_BESIDE_LAST)
 * instead of adding its minute and a half after them.
 * A test database a file closes is reset and handed to the next file of its process (REUSE_TEST_DATABASES, see
 * test/support/idle-pool.ts; REUSE_TEST_DATABASES=0 turns it off); each process ends what is left after its last
 * file.
 *
 *   npm test                      every file under test/ (the load test beside the last groups)
 *   npm test -- test/carts test/http/errors.test.ts   only these files or folders
 *
 * TEST_CONCURRENCY (default 3) is how many test processes run at once; TEST_GROUP_SIZE (default 8) how many
 * files share one.
 */
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { nodeBundleOptions } from '../bin/bundled-entry.js';
import { runTestProcesses, summary } from './test-processes.ts';

const root = resolve(import.meta.dirname, '..');
/** Long files that mostly wait on child processes or timers: each in a process of its own, between the groups. */
const ISOLATED = [
  'test/notifications/cli.test.ts',
  'test/cli/cli.test.ts',
  'test/notifications/listen.test.ts',
  'test/payments/attempts/late-card.test.ts',
  'test/scale/',
];
/** A browser file's time against an ordinary file's, for dealing files into groups of about equal length. */
const BROWSER_FILE_WEIGHT = 5;
/** Measures one process's memory under load for a fixed time: one process of its own, beside the others. */
const LOAD = 'test/load/';
/**
 * The load test starts when this many groups are left to start: it then overlaps the last minute or so of the
 * others. Started beside every group from the beginning, its memory readings were too noisy.
 */
const LOAD_BESIDE_LAST = 3;

const concurrency = positive(process.env.TEST_CONCURRENCY, 3);
const groupSize = positive(process.env.TEST_GROUP_SIZE, 8);
const requested = process.argv.slice(2);
const files = (requested.length ? requested : ['test']).flatMap((path) => testFiles(resolve(root, path))).sort();
const relativeFiles = [...new Set(files)].map((file) => relative(root, file));

const isolated = relativeFiles.filter((file) => ISOLATED.some((prefix) => file.startsWith(prefix)));
const load = relativeFiles.filter((file) => file.startsWith(LOAD));
const grouped = relativeFiles.filter((file) => !isolated.includes(file) && !load.includes(file));

const groupDir = join(root, 'test-results', 'test-groups');
rmSync(groupDir, { recursive: true, force: true });
mkdirSync(groupDir, { recursive: true });
const groups = balancedGroups(grouped, Math.ceil(grouped.length / groupSize));
const main = startOrder(groups, isolated).map((members, index) =>
  writeGroup(`${String(index + 1).padStart(3, '0')}.test.mjs`, members),
);
const loadFiles = load.map((file, index) => writeGroup(`load-${index + 1}.test.mjs`, [file]));
const bundled = await bundle([...main, ...loadFiles]);
// Liftoff only: a test process runs PGlite's WebAssembly for a minute or two, too short for V8's optimizing tier
// to earn back its background compiles (about 8% of a group's CPU).
const nodeArgs = ['--enable-source-maps', '--liftoff-only'];
process.env.REUSE_TEST_DATABASES ??= '1';
const reports = await runTestProcesses(main.map(bundled), concurrency, {
  cwd: root,
  nodeArgs,
  beside: {
    waiting: LOAD_BESIDE_LAST,
    start: () => runTestProcesses(loadFiles.map(bundled), 1, { cwd: root, nodeArgs }),
  },
});
process.stdout.write(summary(reports));
process.exitCode = reports.some((report) => report.status !== 0) ? 1 : 0;

/**
 * The test processes run esbuild bundles of their files (npm packages left as imports, every source module
 * keeping its own import.meta), not the sources through tsx's loader: a process then loads in half the CPU time.
 * One build for all of them, so modules they share are shared chunks. Returns where each entry's bundle is.
 */
async function bundle(entries: string[]): Promise<(entry: string) => string> {
  const outdir = join(root, 'test-results', 'test-build');
  rmSync(outdir, { recursive: true, force: true });
  await esbuild.build({ ...nodeBundleOptions(), entryPoints: entries, outdir, outbase: root });
  return (entry) => join(outdir, relative(root, entry)).replace(/\.(ts|mjs)$/, '.js');
}

/**
 * The order the processes start in (and the names of their files): an isolated file after every two groups, so
 * that its waiting on child processes overlaps the groups' work.
 */
function startOrder(groups: string[][], isolatedFiles: string[]): string[][] {
  const order: string[][] = [];
  const alone = isolatedFiles.map((file) => [file]);
  for (let index = 0; index < groups.length; index++) {
    order.push(groups[index]!);
    if (index % 2 === 1 && alone.length) order.push(alone.shift()!);
  }
  return [...order, ...alone];
}

function writeGroup(name: string, members: string[]): string {
  const path = join(groupDir, name);
  // Each import a literal of its own, for the bundler to follow.
  const suites = members.map(
    (file) => `describe(${JSON.stringify(file)}, () => import(${JSON.stringify(join(root, file))}));`,
  );
  writeFileSync(
    path,
    `// Written by scripts/run-tests.ts: these test files in this process, each file a suite, one after another.
import { after, describe } from 'node:test';
import { closeIdleDatabases } from ${JSON.stringify(join(root, 'test', 'support', 'idle-pool.ts'))};
// The import starts inside the suite's callback, so the file's tests and hooks are that suite's.
${suites.join('\n')}
after(closeIdleDatabases);
`,
  );
  return path;
}

/**
 * Browser files take several times as long as the others (they wait on the pages' polls): each file is dealt to
 * the group with the least expected time so far, heaviest files first, and the groups start heaviest first.
 */
function balancedGroups(members: string[], count: number): string[][] {
  const weight = (file: string) => (/\/browser\/|-browser\.test\.ts$/.test(file) ? BROWSER_FILE_WEIGHT : 1);
  const groups = Array.from({ length: count }, () => ({ files: [] as string[], weight: 0 }));
  for (const file of [...members].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b))) {
    const lightest = groups.reduce((least, group) => (group.weight < least.weight ? group : least));
    lightest.files.push(file);
    lightest.weight += weight(file);
  }
  return groups.sort((a, b) => b.weight - a.weight).map((group) => group.files.sort());
}

function testFiles(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(path, name));
}

function positive(value: string | undefined, fallback: number): number {
  const number = Number(value);
  return Number.isInteger(number) && number > 0 ? number : fallback;
}
