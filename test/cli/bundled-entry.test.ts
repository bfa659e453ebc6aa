import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, utimesSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BUNDLED_ENTRY = join(import.meta.dirname, '../../bin/bundled-entry.js');
const PROJECT = join(import.meta.dirname, '../..');
/** A static import in esbuild's output: `import … from "x";` or `import "x";`, its last line `} from "x";` when long. */
const IMPORTED = /^(?:import\s(?:[^"';]*?\sfrom\s)?|\} from )"([^"]+)";$/gm;

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
    const { stdout } = await run(process.execPath, [join(PROJECT, 'bin/checkout.js'), '--help']);
    assert.match(stdout, /^Usage: checkout <command>/);
  });

  test("this project's bundle holds its npm packages too, except those that read files of their own", async () => {
    const { PACKAGES_WITH_FILES } = await import('../../bin/bundled-entry.js');
    const entry = await entryOf(PROJECT, join(root, 'project-cache'));
    const directory = join(fileURLToPath(entry), '..');
    const imported = new Set<string>();
    for (const file of readdirSync(directory).filter((name) => name.endsWith('.js'))) {
      const text = readFileSync(join(directory, file), 'utf8');
      for (const [, specifier] of text.matchAll(IMPORTED)) imported.add(specifier!);
    }
    const packageOf = (specifier: string) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');
    const packages = [...imported].filter(
      (specifier) => !/^(node:|\.)/.test(specifier) && !builtinModules.includes(specifier),
    );
    assert.ok(packages.length > 0, 'the packages that read their own files are imported');
    for (const specifier of packages)
      assert.ok(PACKAGES_WITH_FILES.includes(packageOf(specifier)), `${specifier} is imported, not bundled`);
    assert.ok(imported.has('@electric-sql/pglite'));
  });
});
