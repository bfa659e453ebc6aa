import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { unseal } from '../../src/lib/crypto.ts';
import { applyMerchant } from '../../src/modules/merchant-file/merchant-apply.ts';
import {
  MerchantDocumentError,
  parseMerchantDocument,
  type MerchantDocument,
} from '../../src/modules/merchant-file/merchant-document.ts';
import { engines } from '../support/engines.ts';

const suffix = randomBytes(3).toString('hex');
const document = (endpoints: unknown[]): MerchantDocument =>
  ({
    account: { name: 'Loja Notifica', slug: `loja-notifica-${suffix}` },
    companies: [
      { slug: `matriz-${suffix}`, name: 'Matriz' },
      { slug: `filial-${suffix}`, name: 'Filial', primary: false },
    ].map((company, i) => ({ ...company, primary: i === 0 })),
    notification_endpoints: endpoints,
  }) as MerchantDocument;

test('the merchant file refuses unknown event types and companies, duplicate urls, other schemes and credentials in urls', () => {
  const yaml = `
account: { name: Loja, slug: loja }
companies: [{ slug: loja, name: Loja }]
notification_endpoints:
  - { url: "https://hooks.example.com/a", events: [order.paid, order.exploded] }
  - { url: "https://hooks.example.com/a" }
  - { url: "ftp://hooks.example.com/b" }
  - { url: "https://user:pw@hooks.example.com/c" }
  - { url: "https://hooks.example.com/d", company: elsewhere }
`;
  assert.throws(
    () => parseMerchantDocument(yaml),
    (error: unknown) => {
      assert.ok(error instanceof MerchantDocumentError);
      assert.match(error.message, /notification_endpoints\[0\]\.events\[1\]: must be one of order\.paid/);
      assert.match(error.message, /notification_endpoints\[2\]\.url: must be an http or https URL/);
      return true;
    },
  );
  const crossField = yaml.replace('order.exploded', 'order.refunded').replace('ftp://', 'https://');
  assert.throws(
    () => parseMerchantDocument(crossField),
    (error: unknown) => {
      assert.ok(error instanceof MerchantDocumentError);
      assert.match(error.message, /notification_endpoints\[1\]\.url: duplicate notification endpoint url/);
      assert.match(error.message, /notification_endpoints\[3\]\.url: must not carry credentials/);
      assert.match(error.message, /notification_endpoints\[4\]\.company: unknown company "elsewhere"/);
      return true;
    },
  );
});

for (const engine of engines()) {
  describe(`notification endpoints in the merchant file on ${engine.name}`, () => {
    const masterKey = randomBytes(32);
    let database: Database;
    before(async () => (database = await engine.open()));
    after(() => database.close());

    test('apply creates endpoints with sealed generated secrets shown once, then updates them in place without duplicates', async () => {
      const endpoints = [
        { url: 'https://hooks.example.com/all' },
        {
          url: 'https://hooks.example.com/refunds',
          events: ['order.refunded', 'order.partially_refunded'],
          company: `filial-${suffix}`,
          description: 'ERP',
        },
      ];
      const first = await applyMerchant(database, masterKey, document(endpoints), { now: new Date() });
      assert.deepEqual(
        Object.keys(first.notification_endpoints),
        endpoints.map((endpoint) => endpoint.url),
      );
      assert.deepEqual(
        Object.keys(first.notification_secrets ?? {}),
        endpoints.map((endpoint) => endpoint.url),
      );
      const rows = await database.db
        .selectFrom('notification_endpoints')
        .selectAll()
        .where('account_id', '=', first.account_id)
        .orderBy('url')
        .execute();
      assert.equal(rows.length, 2);
      for (const row of rows) {
        assert.equal(unseal(masterKey, row.secret_encrypted), first.notification_secrets![row.url]);
        assert.doesNotMatch(row.secret_encrypted, /whsec_/, 'the secret is stored sealed');
      }
      const refunds = rows.find((row) => row.url.endsWith('/refunds'))!;
      assert.deepEqual(
        [refunds.company_id, refunds.event_types, refunds.enabled, refunds.description],
        [first.companies[`filial-${suffix}`], ['order.refunded', 'order.partially_refunded'], true, 'ERP'],
      );
      assert.deepEqual(rows.find((row) => row.url.endsWith('/all'))!.event_types, []);

      const second = await applyMerchant(database, masterKey, document(endpoints), { now: new Date() });
      assert.deepEqual(second.notification_endpoints, first.notification_endpoints);
      assert.equal(second.notification_secrets, undefined, 'no secret is shown again');

      const changed = await applyMerchant(
        database,
        masterKey,
        document([{ url: 'https://hooks.example.com/all', events: ['order.paid'], enabled: false }, endpoints[1]]),
        { now: new Date() },
      );
      assert.deepEqual(changed.notification_endpoints, first.notification_endpoints);
      const after = await database.db
        .selectFrom('notification_endpoints')
        .selectAll()
        .where('account_id', '=', first.account_id)
        .orderBy('url')
        .execute();
      assert.equal(after.length, 2);
      const all = after.find((row) => row.url.endsWith('/all'))!;
      assert.deepEqual([all.event_types, all.enabled], [['order.paid'], false]);
      assert.equal(
        all.secret_encrypted,
        rows.find((row) => row.url.endsWith('/all'))!.secret_encrypted,
        'an update keeps the secret',
      );
    });
  });
}
