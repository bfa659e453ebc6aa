import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'checkout-users-cli-'));
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  PUBLIC_URL: 'http://127.0.0.1:3000',
  LOG_LEVEL: 'silent',
};
const checkout = (...args: string[]) => run(process.execPath, ['bin/checkout.js', ...args], { env });

describe('checkout users add', { timeout: 600_000 }, () => {
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('prints a one-time sign-in link for a new owner; a bad role is a usage error (exit 64)', async () => {
    await checkout('seed', '--demo');
    const { stdout } = await checkout(
      'users',
      'add',
      '--account',
      'demo',
      '--email',
      'Nova@Loja.example',
      '--role',
      'owner',
    );
    const added = JSON.parse(stdout) as { email: string; role: string; sign_in_url: string };
    assert.equal(added.email, 'nova@loja.example');
    assert.equal(added.role, 'owner');
    assert.match(added.sign_in_url, /^http:\/\/127\.0\.0\.1:3000\/dashboard\/link#[A-Za-z0-9_-]{43}$/);
    await assert.rejects(
      checkout('users', 'add', '--account', 'demo', '--email', 'x@loja.example', '--role', 'boss'),
      (error: { code?: number; stderr?: string }) => {
        assert.equal(error.code, 64);
        assert.match(String(error.stderr), /--role must be one of owner, admin, finance, support/);
        return true;
      },
    );
  });
});
