import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'checkout-config-'));

test('defaults: port 3000 on 127.0.0.1, embedded database in DATA_DIR, PUBLIC_URL from host and port', () => {
  const config = loadConfig({ DATA_DIR: dataDir() });
  assert.equal(config.port, 3000);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.databaseUrl, undefined);
  assert.equal(config.publicUrl, 'http://127.0.0.1:3000');
});

test('a generated development master key is kept in DATA_DIR and reused', () => {
  const dir = dataDir();
  const first = loadConfig({ DATA_DIR: dir });
  assert.equal(first.masterKeySource, 'generated');
  assert.ok(existsSync(join(dir, 'master.key')));
  assert.equal(readFileSync(join(dir, 'master.key'), 'utf8').trim(), first.masterKey.toString('hex'));
  assert.deepEqual(loadConfig({ DATA_DIR: dir }).masterKey, first.masterKey);
});

test('invalid values stop the start with a message naming the variable', () => {
  const cases: Array<[NodeJS.ProcessEnv, RegExp]> = [
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL/],
    [{ PUBLIC_URL: 'ftp://x' }, /PUBLIC_URL/],
    [{ MASTER_KEY: 'short' }, /MASTER_KEY/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ NODE_ENV: 'production' }, /MASTER_KEY is required/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig({ DATA_DIR: dataDir(), ...env }),
      (error: Error) => error instanceof ConfigError && message.test(error.message),
      JSON.stringify(env),
    );
  }
});

test('a database URL with a password is not echoed in the error', () => {
  assert.throws(
    () => loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: 'mysql://user:hunter2@db/x' }),
    (error: Error) => !error.message.includes('hunter2'),
  );
});
