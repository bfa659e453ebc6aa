/**
 * `npm run bench`: every `bench/*.bench.ts` in turn, on PostgreSQL (DATABASE_URL, or the local server
 * as postgres). `npm run bench -- orders` runs only the benchmarks whose file name contains "orders".
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const module = (await import(pathToFileURL(join(here, file)).href)) as { run?: () => Promise<unknown> };
  if (typeof module.run !== 'function') {
    console.error(`${file} exports no run()`);
    failed++;
    continue;
  }
  try {
    await module.run();
  } catch (error) {
    failed++;
    console.error(`${file} failed:`, error);
  }
}
process.exitCode = failed ? 1 : 0;
