import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createFreshPostgresDatabase } from '../support/engines.ts';
import { freePort } from '../support/ports.ts';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/checkout.js');
const EXAMPLE = join(import.meta.dirname, '../../examples/merchant.yaml');

type Target = { name: string; env(): NodeJS.ProcessEnv; setup(): Promise<void>; teardown(): Promise<void> };

function targets(): Target[] {
  const masterKey = randomBytes(32).toString('hex');
  const pglite: Target = (() => {
    let dataDir = '';
    return {
      name: 'pglite',
      env: () => ({ DATA_DIR: dataDir, MASTER_KEY: masterKey, DATABASE_URL: '' }),
      setup: async () => void (dataDir = mkdtempSync(join(tmpdir(), 'checkout-cli-'))),
      teardown: async () => {},
    };
  })();
  const list = [pglite];
  const baseUrl = process.env.DATABASE_URL;
  if (baseUrl) {
    let fresh: Awaited<ReturnType<typeof createFreshPostgresDatabase>>;
    list.push({
      name: 'postgres',
      env: () => ({
        DATA_DIR: mkdtempSync(join(tmpdir(), 'checkout-cli-')),
        MASTER_KEY: masterKey,
        DATABASE_URL: fresh.url,
      }),
      setup: async () => void (fresh = await createFreshPostgresDatabase(baseUrl)),
      teardown: () => fresh.drop(),
    });
  }
  return list;
}

async function checkout(env: NodeJS.ProcessEnv, ...args: string[]) {
  return run(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    timeout: 120_000,
  });
}

for (const target of targets()) {
  describe(`checkout CLI on ${target.name}`, () => {
    before(() => target.setup());
    after(() => target.teardown());

    test('apply creates a merchant, then updates it in place without duplicates', async () => {
      const first = JSON.parse((await checkout(target.env(), 'apply', EXAMPLE)).stdout);
      assert.equal(first.created, true);
      assert.match(first.api_key, /^ck_[0-9a-f]{16}_/);
      const second = JSON.parse((await checkout(target.env(), 'apply', EXAMPLE)).stdout);
      assert.equal(second.created, false);
      assert.equal(second.api_key, null);
      assert.deepEqual(
        { ...second, api_key: undefined, created: undefined },
        { ...first, api_key: undefined, created: undefined },
      );
    });

    test('apply refuses an invalid file with a message naming the problem and exit code 1', async () => {
      const bad = join(mkdtempSync(join(tmpdir(), 'checkout-bad-')), 'bad.yaml');
      await import('node:fs').then((fs) =>
        fs.writeFileSync(bad, 'account: { name: X, slug: "Not A Slug" }\ncompanies: []\n'),
      );
      await assert.rejects(checkout(target.env(), 'apply', bad), (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.match(error.stderr, /slug/);
        assert.doesNotMatch(error.stderr, /at .*\.ts:\d+/);
        return true;
      });
    });

    test('usage mistakes exit 64 with one line and no stack trace, and change nothing', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'checkout-usage-'));
      const usageError = async (args: string[], message: RegExp, env: NodeJS.ProcessEnv = target.env()) =>
        assert.rejects(checkout(env, ...args), (error: { code: number; stderr: string }) => {
          assert.equal(error.code, 64, `${args.join(' ')}: ${error.stderr}`);
          assert.match(error.stderr, message);
          assert.doesNotMatch(error.stderr, /\n\s+at /, 'no stack trace');
          return true;
        });
      await usageError(['apply', join(dir, 'missing.yaml')], /cannot read .*missing\.yaml: ENOENT/);
      await usageError(['apply', dir], /cannot read .*: EISDIR/);
      await usageError(['apply', EXAMPLE, '--rotate'], /Unknown option '--rotate'/);
      await usageError(['apply', EXAMPLE, join(dir, 'second.yaml')], /apply takes one FILE/);
      // An unset shell variable gives an empty value: it must not read as "revoke every other key now".
      for (const grace of ['', ' ', '0x10', '1e13', '-1']) {
        await usageError(
          ['keys', 'rotate', '--account', 'loja-exemplo', `--grace-seconds=${grace}`],
          /--grace-seconds must be a whole number of seconds/,
        );
      }
      // A database never migrated: the command migrates first, so the answer is about the account, not a missing table.
      const fresh =
        target.name === 'pglite'
          ? { ...target.env(), DATA_DIR: mkdtempSync(join(tmpdir(), 'checkout-fresh-')) }
          : target.env();
      await usageError(['keys', 'rotate', '--account', 'nobody-here'], /no account with slug nobody-here/, fresh);
    });

    test('seed --demo --json is idempotent and prints the same keys every run', async () => {
      const first = JSON.parse((await checkout(target.env(), 'seed', '--demo', '--json')).stdout);
      const second = JSON.parse((await checkout(target.env(), 'seed', '--demo', '--json')).stdout);
      assert.equal(first.api_key, second.api_key);
      assert.deepEqual(first.checkout_pages, second.checkout_pages);
      assert.deepEqual(first.charges, second.charges);
      assert.notEqual(first.api_key, first.other_account.api_key);
      assert.equal(Object.keys(first.checkout_pages).length, 6);
      assert.deepEqual(Object.keys(first.coupons).sort(), ['DEMO10', 'DESCONTO20', 'ESGOTADO', 'EXPIRADO', 'SOEBOOK']);
    });

    test('start serves the demo, answers its own curl line, and drains on SIGTERM', async () => {
      const port = await freePort();
      const child = spawn(process.execPath, [BIN, 'start'], {
        env: { ...process.env, ...target.env(), PORT: String(port), LOG_LEVEL: 'warn' },
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      try {
        const deadline = Date.now() + 60_000;
        while (!/Demo API key:\s+ck_/.test(output) && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 200));
        const key = /Demo API key:\s+(ck_\S+)/.exec(output)?.[1];
        assert.ok(key, output);
        const pages = await fetch(`http://127.0.0.1:${port}/api/v1/checkout_pages`, {
          headers: { authorization: `Bearer ${key}` },
        });
        assert.equal(pages.status, 200);
        assert.equal(((await pages.json()) as unknown[]).length, 6);
        assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited, 0, output);
    });
  });
}
