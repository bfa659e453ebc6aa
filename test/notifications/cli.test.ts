import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { openDatabase, type Database, type DatabaseOptions } from '../../src/db/database.ts';
import { createFreshPostgresDatabase } from '../support/engines.ts';
import { deliveryWorker, drainDeliveries, insertOrder, moveOrder, testClock } from './fixtures.ts';
import { Receiver } from './receiver.ts';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/checkout.js');
const masterKey = randomBytes(32);

type Target = { name: string; env: NodeJS.ProcessEnv; database: DatabaseOptions; teardown(): Promise<void> };

async function targets(): Promise<Target[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'checkout-notify-cli-'));
  const list: Target[] = [
    {
      name: 'pglite',
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      database: { engine: 'pglite', dataDir },
      teardown: async () => {},
    },
  ];
  if (process.env.DATABASE_URL) {
    const fresh = await createFreshPostgresDatabase(process.env.DATABASE_URL);
    list.push({
      name: 'postgres',
      env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'checkout-notify-cli-')), DATABASE_URL: fresh.url },
      database: { engine: 'postgres', url: fresh.url },
      teardown: () => fresh.drop(),
    });
  }
  return list;
}

for (const target of await targets()) {
  describe(`checkout notifications on ${target.name}`, { timeout: 900_000 }, () => {
    const slug = `cli-notify-${randomBytes(3).toString('hex')}`;
    const clock = testClock();
    const merchant = new Receiver({ secrets: [], now: () => clock.now(), alwaysAnswer: 500 });
    let url = '';
    const checkout = async (...args: string[]) => {
      const { stdout } = await run(process.execPath, [BIN, ...args], {
        env: { ...process.env, ...target.env, MASTER_KEY: masterKey.toString('hex'), LOG_LEVEL: 'warn' },
        timeout: 120_000,
      });
      return JSON.parse(stdout);
    };
    const failure = (...args: string[]) =>
      checkout(...args).then(
        () => assert.fail('expected a failure'),
        (error: { code: number; stderr: string }) => error,
      );
    /** The database between CLI runs (PGlite's directory cannot be opened by two processes at once). */
    const withDatabase = async <T>(work: (database: Database) => Promise<T>): Promise<T> => {
      const database = await openDatabase(target.database);
      try {
        return await work(database);
      } finally {
        await database.close();
      }
    };

    before(async () => {
      url = await merchant.start();
    });
    after(async () => {
      await merchant.close();
      await target.teardown();
    });

    test('apply registers an endpoint from the file and prints its secret; add, list, disable and rotate-secret manage the rest', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'checkout-notify-')), 'merchant.yaml');
      writeFileSync(
        file,
        `account: { name: Loja CLI, slug: ${slug} }\ncompanies: [{ slug: ${slug}, name: Loja CLI }]\nnotification_endpoints:\n  - { url: "${url}", events: [order.paid] }\n`,
      );
      const applied = await checkout('apply', file);
      assert.match(applied.notification_secrets[url], /^whsec_/);
      merchant.options.secrets = [applied.notification_secrets[url]];

      const added = await checkout(
        'notifications',
        'add',
        '--account',
        slug,
        '--url',
        'https://erp.example.com/hooks',
        '--events',
        'order.refunded,order.chargeback',
        '--description',
        'ERP',
      );
      assert.match(added.id, /^ep_[0-9a-f]{24}$/);
      assert.match(added.secret, /^whsec_/);
      assert.deepEqual(added.events, ['order.refunded', 'order.chargeback']);
      const listed = await checkout('notifications', 'list', '--account', slug);
      assert.deepEqual(
        listed.map((endpoint: { url: string }) => endpoint.url),
        [url, 'https://erp.example.com/hooks'],
      );
      assert.ok(
        listed.every((endpoint: object) => !('secret' in endpoint)),
        'list never shows a secret',
      );
      assert.equal((await checkout('notifications', 'disable', added.id)).enabled, false);
      const rotated = await checkout('notifications', 'rotate-secret', added.id, '--grace-seconds', '60');
      assert.notEqual(rotated.secret, added.secret);
      assert.ok(Date.parse(rotated.secret_rotation_ends_at) > Date.now());
    });

    test('bad input exits with a message: 1 for a refused value, 64 for a usage mistake', async () => {
      const badUrl = await failure('notifications', 'add', '--account', slug, '--url', 'ftp://example.com/x');
      assert.equal(badUrl.code, 1);
      assert.match(badUrl.stderr, /url must be an http or https URL/);
      const duplicate = await failure('notifications', 'add', '--account', slug, '--url', url);
      assert.match(duplicate.stderr, /already endpoint ep_/);
      const unknown = await failure('notifications', 'explode');
      assert.equal(unknown.code, 64);
      assert.match(unknown.stderr, /unknown subcommand "explode"/);
      // An empty value (an unset shell variable) or one past the API's seven days is refused, not read as 0.
      for (const grace of ['', '1e13', String(7 * 86_400 + 1)]) {
        const refused = await failure(
          'notifications',
          'rotate-secret',
          'ep_000000000000000000000000',
          `--grace-seconds=${grace}`,
        );
        assert.equal(refused.code, 64, refused.stderr);
        assert.match(refused.stderr, /--grace-seconds must be a whole number of seconds from 0 to 604800/);
      }
      assert.doesNotMatch(unknown.stderr + badUrl.stderr, /at .*\.ts:\d+/, 'no stack trace');
    });

    test('failed lists a delivery that exhausted its attempts, attempts shows its log, redeliver sends it again and it is delivered', async () => {
      await withDatabase(async (database) => {
        const account = await database.db
          .selectFrom('accounts')
          .select('id')
          .where('slug', '=', slug)
          .executeTakeFirstOrThrow();
        const company = await database.db
          .selectFrom('companies')
          .select('id')
          .where('slug', '=', slug)
          .executeTakeFirstOrThrow();
        const tenant = { accountId: account.id, companyId: company.id, apiKey: '', slug };
        const order = await insertOrder(database, tenant);
        await moveOrder(database, tenant, order.id, 'paid');
        await drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock);
      });
      const failed = await checkout('notifications', 'failed', '--account', slug);
      assert.equal(failed.length, 1);
      assert.deepEqual(
        [failed[0].account, failed[0].event_type, failed[0].url, failed[0].attempts, failed[0].last_status_code],
        [slug, 'order.paid', url, 15, 500],
      );
      assert.match(failed[0].id, /^dlv_/);
      assert.match(
        (await failure('notifications', 'failed', '--account', 'no-such-account')).stderr,
        /no account with slug no-such-account/,
      );
      const attempts = await checkout('notifications', 'attempts', failed[0].id);
      assert.deepEqual(
        attempts.map((row: { attempt: number; status_code: number }) => [row.attempt, row.status_code]),
        Array.from({ length: 15 }, (_, i) => [i + 1, 500]),
      );
      assert.equal(merchant.received.length, 15);

      merchant.options.alwaysAnswer = 200;
      assert.deepEqual(await checkout('notifications', 'redeliver', failed[0].id), { redelivered: [failed[0].id] });
      assert.deepEqual(
        await checkout('notifications', 'redeliver', '--all-failed', '--account', slug),
        { redelivered: [] },
        'it is pending now, not failed',
      );
      await withDatabase((database) => drainDeliveries(database, deliveryWorker(database, masterKey, clock), clock));
      assert.equal(merchant.received.length, 16);
      assert.equal(merchant.received.at(-1)!.eventId, failed[0].event_id);
      assert.deepEqual(merchant.received.at(-1)!.verifiedBy, [0]);
      assert.deepEqual(await checkout('notifications', 'failed', '--account', slug), []);
    });
  });
}
