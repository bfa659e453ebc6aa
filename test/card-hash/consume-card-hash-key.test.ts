import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import type { RunningSandboxes } from '../../src/gateways/sandbox/server.ts';
import { AppError } from '../../src/http/errors.ts';
import { consumeCardHashKey } from '../../src/modules/card-hash/card-hash.service.ts';
import { createTenant, type Tenant } from '../support/app.ts';
import {
  addGatewayC,
  encryptCard,
  SHOP_ORIGIN,
  startCardHashApp,
  startGatewaySandboxes,
} from '../support/card-hash-fixtures.ts';
import { insertCompany } from '../support/catalog-fixtures.ts';
import { engines } from '../support/engines.ts';
import { insertCheckoutPage } from '../support/records-fixtures.ts';

const FIVE_MINUTES = 5 * 60_000;
const T0 = new Date('2030-03-01T12:00:00.000Z');

/** A 422 AppError with this code whose message matches. */
const refused = (code: 'validation_failed' | 'business_rule_violation', message: RegExp) => (error: unknown) =>
  error instanceof AppError && error.code === code && error.status === 422 && message.test(error.message);

for (const engine of engines()) {
  describe(`consumeCardHashKey on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let sandboxes: RunningSandboxes;
    let app: FastifyInstance;
    let shop: Tenant;
    let other: Tenant;
    let nextKeyId = 700_000;

    before(async () => {
      database = await engine.open();
      sandboxes = await startGatewaySandboxes();
      let masterKey: Buffer;
      ({
        app,
        config: { masterKey },
      } = await startCardHashApp(database, { gatewayCUrl: sandboxes.baseUrlFor('gateway_c') }));
      shop = await createTenant(database, { allowedHosts: ['shop.example'] });
      other = await createTenant(database, { allowedHosts: ['other.example'] });
      await addGatewayC(database, shop, masterKey);
    });
    after(async () => {
      await app.close();
      await sandboxes.close();
      await database.close();
    });

    /** A key row as the endpoint records it, created at `createdAt`; returns a card hash token of that key. */
    async function storedKey(tenant: Tenant, createdAt = T0, companyId = tenant.companyId): Promise<string> {
      nextKeyId += 1;
      await database.db
        .insertInto('card_hash_keys')
        .values({
          account_id: tenant.accountId,
          company_id: companyId,
          gateway_key_id: nextKeyId,
          public_key_pem: 'PEM',
          created_at: createdAt,
          expires_at: new Date(createdAt.getTime() + FIVE_MINUTES),
        })
        .execute();
      return `${nextKeyId}_QUJDRA==`;
    }

    const consume = (token: string, now: Date, tenant = shop, companyId = tenant.companyId) =>
      database.db
        .transaction()
        .execute((trx) => consumeCardHashKey(trx, { accountId: tenant.accountId, companyId, token, now }));

    test('a key issued by the endpoint is spent once: the second use is refused', async () => {
      const page = await insertCheckoutPage(database, shop, { gateway: 'gateway_c' });
      const key = (
        await app.inject({ url: `/api/v1/checkout_pages/${page}/card_hash_key`, headers: SHOP_ORIGIN })
      ).json();
      const token = encryptCard(key);
      const now = new Date();
      await consume(token, now);
      const row = await database.db
        .selectFrom('card_hash_keys')
        .select('consumed_at')
        .where('account_id', '=', shop.accountId)
        .where('gateway_key_id', '=', key.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.consumed_at?.getTime(), now.getTime());
      await assert.rejects(consume(token, new Date()), refused('business_rule_violation', /already used/));
    });

    test('concurrent uses of one key: exactly one succeeds', async () => {
      for (let round = 0; round < 3; round += 1) {
        const token = await storedKey(shop);
        const attempt = () =>
          database.db.transaction().execute(async (trx) => {
            await consumeCardHashKey(trx, { accountId: shop.accountId, companyId: shop.companyId, token, now: T0 });
            // Hold the transaction open so the other attempts run while this one has not committed.
            await sleep(50);
          });
        const outcomes = await Promise.allSettled([attempt(), attempt(), attempt(), attempt()]);
        assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 1, `round ${round}`);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected')
            assert.ok(refused('business_rule_violation', /already used/)(outcome.reason), String(outcome.reason));
        }
      }
    });

    test('a key lives five minutes from its creation', async () => {
      const lastMoment = await storedKey(shop);
      await consume(lastMoment, new Date(T0.getTime() + FIVE_MINUTES - 1));
      const expired = await storedKey(shop);
      await assert.rejects(
        consume(expired, new Date(T0.getTime() + FIVE_MINUTES)),
        refused('business_rule_violation', /expired/),
      );
      await consume(expired, new Date(T0.getTime() + 60_000));
    });

    test('a key of another company or another account, or one never issued, is refused and left unused', async () => {
      const token = await storedKey(shop);
      const branch = await insertCompany(database, shop);
      await assert.rejects(consume(token, T0, shop, branch), refused('business_rule_violation', /did not issue/));
      await assert.rejects(consume(token, T0, other), refused('business_rule_violation', /did not issue/));
      await assert.rejects(consume('999999999_QUJDRA==', T0), refused('business_rule_violation', /did not issue/));
      await consume(token, T0);
    });

    test('a token that is not <key id>_<base64> is a validation error', async () => {
      for (const token of [
        '',
        'abc',
        '12_',
        '_QUJD',
        '12-QUJD',
        '12_QU JD',
        'x12_QUJD',
        '1234567890123456_QUJD',
        '12_QUJD=x',
        'tok_abc123',
      ]) {
        await assert.rejects(
          consume(token, T0),
          refused('validation_failed', /not a gateway_c card hash/),
          JSON.stringify(token),
        );
      }
    });
  });
}
