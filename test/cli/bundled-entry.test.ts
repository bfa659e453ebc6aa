import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BUNDLED_ENTRY = join(import.meta.dirname, '../../bin/bundled-entry.js');

/** The bundle's entry URL for a project at `root`, from a process of its own (as `checkout` asks for it). */
async function entryOf(root: string, cacheDir: string): Promise<string> {
  const script = `import { bundledEntry } from ${JSON.stringify(BUNDLED_ENTRY)};
console.log(await bundledEntry(${JSON.stringify(root)}, ${JSON.stringify(cacheDir)}));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return stdout.trim();
}

async function output(entry: string): Promise<string> {
  return (await run(process.execPath, [fileURLToPath(entry)])).stdout.trim();
}

describe('the checkout command runs a bundle of the sources as they are now', () => {
  const root = mkdtempSync(join(tmpdir(), 'checkout-bundle-'));
  const cacheDir = join(root, 'cache');
  const message = join(root, 'src', 'lib', 'message.ts');
  mkdirSync(join(root, 'src', 'lib'), { recursive: true });
  writeFileSync(join(root, 'tsconfig.json'), '{ "compilerOptions": { "target": "ES2022" } }');
  writeFileSync(
    join(root, 'src', 'main.ts'),
    `import { message } from './lib/message.ts';\nconst words: string[] = [message(), import.meta.dirname];\nconsole.log(words.join(' '));\n`,
  );
  writeFileSync(message, `export const message = (): string => 'first ' + import.meta.filename;\n`);

  test('built on first use; every module keeps its own location; a second run reuses it', async () => {
    const entry = await entryOf(root, cacheDir);
    assert.ok(entry.startsWith(`file://${cacheDir}/`), entry);
    assert.equal(await output(entry), `first ${message} ${join(root, 'src')}`);
    assert.equal(await entryOf(root, cacheDir), entry, 'the same sources, the same bundle');
  });

  test('a changed source file makes a new bundle, which runs the change', async () => {
    const before = await entryOf(root, cacheDir);
    writeFileSync(message, `export const message = (): string => 'second';\n`);
    const later = new Date(Date.now() + 5_000);
    utimesSync(message, later, later);
    const after = await entryOf(root, cacheDir);
    assert.notEqual(after, before);
    assert.equal(await output(after), `second ${join(root, 'src')}`);
  });

  test('the bundle of this project runs `checkout --help`', async () => {
    const { stdout } = await run(process.execPath, [join(import.meta.dirname, '../../bin/checkout.js'), '--help']);
    assert.match(stdout, /^Usage: checkout <command>/);
  });
});
