import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { seal } from '../../src/lib/crypto.ts';
import { createTenant, startTestApp, type Tenant } from '../support/app.ts';
import { engines } from '../support/engines.ts';
import { basic } from '../support/webhooks-fixtures.ts';

for (const engine of engines()) {
  describe(`webhook receivers with a company id in the path on ${engine.name}`, () => {
    let database: Database;
    let app: FastifyInstance;
    let tenant: Tenant;
    const credentials = { username: 'bank-user', password: 'bank-password' };

    before(async () => {
      database = await engine.open();
      let masterKey: Buffer;
      ({
        app,
        config: { masterKey },
      } = await startTestApp(database));
      tenant = await createTenant(database);
      await database.db
        .insertInto('company_webhook_credentials')
        .values({
          account_id: tenant.accountId,
          company_id: tenant.companyId,
          receiver: 'bank',
          username: credentials.username,
          secret_encrypted: seal(masterKey, credentials.password),
        })
        .execute();
    });
    after(async () => {
      await app.close();
      await database.close();
    });

    const post = (path: string, headers: Record<string, string> = {}) =>
      app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${path}`,
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify({
          id: `evt-${randomUUID()}`,
          type: 'pix.received',
          data: { gateway_id: 'ch_unknown', amount: 100, paid_at: new Date().toISOString() },
        }),
      });

    test('a company id that is not a positive integer is an unknown company: 401, as the specification says, never 404', async () => {
      for (const company of ['abc', '0', '-1', '1.5', '1e3', '00', '9'.repeat(16), '%20']) {
        const bank = await post(`${company}/bank`, basic(credentials.username, credentials.password));
        assert.equal(bank.statusCode, 401, `bank ${company}`);
        assert.equal(bank.json().code, 'invalid_credentials', `bank ${company}`);
        const gatewayB = await post(`${company}/gateway_b`, { 'gateway-b-signature': 't=1,v1=00' });
        assert.equal(gatewayB.statusCode, 401, `gateway_b ${company}`);
        assert.equal(gatewayB.json().code, 'invalid_signature', `gateway_b ${company}`);
      }
    });

    test('the same answer as for a numeric id no company has; the company’s own id still authenticates', async () => {
      const unknown = await post('99999999/bank', basic(credentials.username, credentials.password));
      assert.equal(unknown.statusCode, 401);
      assert.equal(unknown.json().code, 'invalid_credentials');
      assert.equal((await post('99999999/gateway_b')).json().code, 'invalid_signature');
      assert.equal((await post(`${tenant.companyId}/bank`, basic(credentials.username, 'wrong'))).statusCode, 401);
      const known = await post(`${tenant.companyId}/bank`, basic(credentials.username, credentials.password));
      assert.equal(known.statusCode, 200, known.body);
      assert.deepEqual(known.json(), { status: 'received' });
    });
  });
}
