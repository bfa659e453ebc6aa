import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { unseal } from '../../src/lib/crypto.ts';
import { applyMerchant } from '../../src/modules/merchant-file/merchant-apply.ts';
import { parseMerchantDocument } from '../../src/modules/merchant-file/merchant-document.ts';
import { as, userSignedIn } from '../dashboard/support.ts';
import { startTestApp } from '../support/app.ts';
import { engines } from '../support/engines.ts';

const FULL = `
account: { name: Loja Campos, slug: loja-campos, allowed_hosts: [loja-campos.example.com] }
companies:
  - slug: loja-campos
    name: Loja Campos
    legal_name: Loja Campos Comercio LTDA
    document: "11222333000181"
    city: SAO PAULO
    state: SP
    time_zone: America/Sao_Paulo
    pix_expiration_minutes: 30
    boleto_due_days: 3
    gateways:
      - { gateway: gateway_a, public_key: pk_file, secret_key: sk_from_the_file, settings: { statement_descriptor: CAMPOS } }
`;

/** The same merchant with only what a file must state: names and slugs, one gateway by name. */
const MINIMAL = `
account: { name: Loja Campos, slug: loja-campos }
companies:
  - slug: loja-campos
    name: Loja Campos
    gateways:
      - { gateway: gateway_a }
`;

/** The same merchant stating two company fields and the gateway's public key. */
const PARTIAL = `
account: { name: Loja Campos, slug: loja-campos }
companies:
  - slug: loja-campos
    name: Loja Campos
    boleto_due_days: 9
    city: CAMPINAS
    gateways:
      - { gateway: gateway_a, public_key: pk_file_again }
`;

const companyRow = (database: Database, slug: string) =>
  database.db.selectFrom('companies').selectAll().where('slug', '=', slug).executeTakeFirstOrThrow();

for (const engine of engines()) {
  describe(`checkout apply changes only the fields the file states, on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let app: FastifyInstance;
    let masterKey: Buffer;

    test('what the dashboard set survives a file that leaves it out, and a stated field is the file’s', async () => {
      database = await engine.open();
      try {
        const started = await startTestApp(database);
        app = started.app;
        masterKey = started.config.masterKey;
        const applied = await applyMerchant(database, masterKey, parseMerchantDocument(FULL, 'full.yaml'), {
          now: new Date(),
        });
        const companyId = applied.companies['loja-campos']!;
        const accountRow = await database.db
          .selectFrom('accounts')
          .select('id')
          .where('slug', '=', 'loja-campos')
          .executeTakeFirstOrThrow();
        const owner = await userSignedIn(
          app,
          database,
          {
            accountId: accountRow.id,
            companyId,
            apiKey: '',
            slug: 'loja-campos',
          },
          'owner',
        );
        const patch = (url: string, payload: object, method: 'PATCH' | 'PUT' = 'PATCH') =>
          app.inject({ method, url: `/api/v1/dashboard${url}`, headers: as(owner), payload });

        const company = await patch(`/settings/companies/${companyId}`, {
          legal_name: 'Campos Razao Social Nova',
          time_zone: 'America/Manaus',
          pix_expiration_minutes: 90,
          boleto_due_days: 5,
          city: 'SANTOS',
          state: 'RJ',
        });
        assert.equal(company.statusCode, 200, company.body);
        const gateway = await patch(`/settings/companies/${companyId}/gateways/gateway_a`, {
          public_key: 'pk_dashboard',
          secret_key: 'sk_set_in_the_dashboard',
          enabled: false,
        });
        assert.equal(gateway.statusCode, 200, gateway.body);
        const hosts = await patch('/allowed_hosts', { allowed_hosts: ['painel.example.com'] }, 'PUT');
        assert.equal(hosts.statusCode, 200, hosts.body);

        await applyMerchant(database, masterKey, parseMerchantDocument(MINIMAL, 'minimal.yaml'), { now: new Date() });
        const kept = await companyRow(database, 'loja-campos');
        assert.equal(kept.legal_name, 'Campos Razao Social Nova');
        assert.equal(kept.document, '11222333000181');
        assert.equal(kept.time_zone, 'America/Manaus');
        assert.equal(kept.pix_expiration_minutes, 90);
        assert.equal(kept.boleto_due_days, 5);
        assert.equal(kept.city, 'SANTOS');
        assert.equal(kept.state, 'RJ');
        const keptGateway = await database.db
          .selectFrom('company_gateways')
          .selectAll()
          .where('company_id', '=', companyId)
          .where('gateway', '=', 'gateway_a')
          .executeTakeFirstOrThrow();
        assert.equal(keptGateway.public_key, 'pk_dashboard');
        assert.equal(keptGateway.enabled, false);
        assert.deepEqual(keptGateway.settings, { statement_descriptor: 'CAMPOS' });
        assert.equal(unseal(masterKey, keptGateway.secret_encrypted!), 'sk_set_in_the_dashboard');
        const account = await database.db
          .selectFrom('accounts')
          .select('allowed_hosts')
          .where('slug', '=', 'loja-campos')
          .executeTakeFirstOrThrow();
        assert.deepEqual(account.allowed_hosts, ['painel.example.com']);

        await applyMerchant(database, masterKey, parseMerchantDocument(PARTIAL, 'partial.yaml'), { now: new Date() });
        const stated = await companyRow(database, 'loja-campos');
        assert.equal(stated.boleto_due_days, 9);
        assert.equal(stated.city, 'CAMPINAS');
        assert.equal(stated.time_zone, 'America/Manaus');
        assert.equal(stated.pix_expiration_minutes, 90);
        const statedGateway = await database.db
          .selectFrom('company_gateways')
          .select(['public_key', 'enabled'])
          .where('company_id', '=', companyId)
          .where('gateway', '=', 'gateway_a')
          .executeTakeFirstOrThrow();
        assert.deepEqual(statedGateway, { public_key: 'pk_file_again', enabled: false });
      } finally {
        await app?.close();
        await database.close();
      }
    });

    test('a company a file creates takes the defaults of what it leaves out', async () => {
      const fresh = await engine.open();
      try {
        const applied = await applyMerchant(fresh, masterKey, parseMerchantDocument(MINIMAL, 'minimal.yaml'), {
          now: new Date(),
        });
        const row = await companyRow(fresh, 'loja-campos');
        assert.equal(row.id, applied.companies['loja-campos']);
        assert.deepEqual(
          [row.city, row.time_zone, row.pix_expiration_minutes, row.boleto_due_days, row.enable_two_cards],
          ['SAO PAULO', 'America/Sao_Paulo', 30, 3, false],
        );
        const gateway = await fresh.db
          .selectFrom('company_gateways')
          .select(['enabled', 'public_key', 'settings', 'secret_encrypted'])
          .where('company_id', '=', row.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(gateway, { enabled: true, public_key: null, settings: {}, secret_encrypted: null });
        const account = await fresh.db
          .selectFrom('accounts')
          .select('allowed_hosts')
          .where('slug', '=', 'loja-campos')
          .executeTakeFirstOrThrow();
        assert.deepEqual(account.allowed_hosts, []);
      } finally {
        await fresh.close();
      }
    });
  });
}
