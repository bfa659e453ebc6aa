import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { rotateKey, verifyKey } from '../../src/modules/accounts/api-keys.ts';
import { seedDemo } from '../../src/modules/demo/demo-seed.ts';
import { engines } from '../support/engines.ts';

for (const engine of engines()) {
  describe(`the demo seed on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    const config = { masterKey: randomBytes(32) };
    before(async () => (database = await engine.open()));
    after(() => database.close());

    test('the key it prints always works: a rotation of the demo account since is undone by the next seed', async () => {
      const first = await seedDemo(database, config, new Date());
      assert.equal((await verifyKey(database.db, first.api_key, new Date()))?.accountId, first.account_id);
      const rotated = await rotateKey(database.db, first.account_id, 0, new Date());
      assert.equal(
        await verifyKey(database.db, first.api_key, new Date()),
        undefined,
        'the rotation retired the demo key',
      );
      const second = await seedDemo(database, config, new Date());
      assert.equal(second.api_key, first.api_key);
      assert.equal((await verifyKey(database.db, second.api_key, new Date()))?.accountId, first.account_id);
      // The key the rotation issued is left as it was.
      assert.equal((await verifyKey(database.db, rotated.plaintext, new Date()))?.accountId, first.account_id);
      assert.equal(
        (await verifyKey(database.db, second.other_account.api_key, new Date()))?.accountId,
        second.other_account.account_id,
      );
    });
  });
}
