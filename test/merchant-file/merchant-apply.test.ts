import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { unseal } from '../../src/lib/crypto.ts';
import { generateKey, verifyKey } from '../../src/modules/accounts/api-keys.ts';
import { applyMerchant, MerchantApplyError, type ApplyResult } from '../../src/modules/merchant-file/merchant-apply.ts';
import {
  MerchantDocumentError,
  parseMerchantDocument,
  type MerchantDocument,
} from '../../src/modules/merchant-file/merchant-document.ts';
import { engines } from '../support/engines.ts';

const EXAMPLE = readFileSync(new URL('../../examples/merchant.yaml', import.meta.url), 'utf8');
const TABLES = [
  'accounts',
  'api_keys',
  'companies',
  'company_gateways',
  'company_webhook_credentials',
  'company_schedules',
  'sellers',
  'products',
  'payment_plans',
  'payment_plan_taxes',
  'coupons',
  'coupon_products',
  'checkout_pages',
  'checkout_page_products',
  'checkout_page_payment_plans',
  'cart_pages',
  'cart_page_payment_plans',
] as const;

const example = (): MerchantDocument => parseMerchantDocument(EXAMPLE, 'merchant.yaml');

async function countRows(database: Database): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(database.db);
    counts[table] = rows[0]!.n;
  }
  return counts;
}

for (const engine of engines()) {
  describe(`merchant apply on ${engine.name}`, () => {
    let database: Database;
    let first: ApplyResult;
    const masterKey = randomBytes(32);
    before(async () => (database = await engine.open()));
    after(() => database.close());

    test('applying the example creates every entity with its values', async () => {
      first = await applyMerchant(database, masterKey, example(), { now: new Date() });
      const db = database.db;
      assert.equal(first.created, true);
      assert.match(first.api_key ?? '', /^ck_[0-9a-f]{16}_/);
      const account = await db
        .selectFrom('accounts')
        .selectAll()
        .where('id', '=', first.account_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [account.slug, account.name, account.allowed_hosts],
        ['loja-exemplo', 'Loja Exemplo', ['loja.example.com', '*.loja.example.com', 'localhost:5173']],
      );

      const company = await db
        .selectFrom('companies')
        .selectAll()
        .where('id', '=', first.companies['loja-exemplo']!)
        .executeTakeFirstOrThrow();
      assert.equal(company.account_id, first.account_id);
      assert.deepEqual(
        [company.is_primary, company.document, company.state, company.pix_expiration_minutes, company.enable_two_cards],
        [true, '11222333000181', 'SP', 30, true],
      );

      const gateway = await db
        .selectFrom('company_gateways')
        .selectAll()
        .where('gateway', '=', 'gateway_a')
        .executeTakeFirstOrThrow();
      assert.ok(
        !gateway.secret_encrypted!.includes('sk_test_loja_exemplo'),
        'the gateway secret is not stored in clear',
      );
      assert.equal(unseal(masterKey, gateway.secret_encrypted!), 'sk_test_loja_exemplo');
      assert.deepEqual(gateway.settings, { statement_descriptor: 'LOJAEXEMPLO' });
      const basic = await db
        .selectFrom('company_webhook_credentials')
        .selectAll()
        .where('receiver', '=', 'gateway_a')
        .executeTakeFirstOrThrow();
      assert.equal(basic.username, 'loja-exemplo-ga');
      assert.ok(!basic.secret_encrypted.includes('senha-webhook-gateway-a'));
      assert.equal(unseal(masterKey, basic.secret_encrypted), 'senha-webhook-gateway-a');
      const schedules = await db
        .selectFrom('company_schedules')
        .select(['weekday', 'starts_at', 'ends_at', 'slot_minutes'])
        .orderBy('id')
        .execute();
      assert.deepEqual(schedules[2], { weekday: 3, starts_at: '09:00:00', ends_at: '12:00:00', slot_minutes: 60 });

      const ebook = await db
        .selectFrom('products')
        .selectAll()
        .where('id', '=', first.products['ebook-1']!)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [ebook.value_cents, ebook.external_id, ebook.ncm, ebook.image_url],
        [9790, 'ebook-1', '49019900', 'https://cdn.loja.example.com/ebook-1.png'],
      );
      assert.match(ebook.uid, /^[0-9a-f-]{36}$/);
      const club = await db
        .selectFrom('products')
        .selectAll()
        .where('id', '=', first.products['clube-mensal']!)
        .executeTakeFirstOrThrow();
      assert.deepEqual([club.subscription, club.interval, club.value_cents], [true, 'month', 2990]);

      const card = await db
        .selectFrom('payment_plans')
        .selectAll()
        .where('id', '=', first.payment_plans.card!)
        .executeTakeFirstOrThrow();
      assert.deepEqual([card.ref, card.max_installments, card.min_installment_cents], ['card', 12, 500]);
      const boleto = await db
        .selectFrom('payment_plans')
        .selectAll()
        .where('id', '=', first.payment_plans.boleto!)
        .executeTakeFirstOrThrow();
      assert.deepEqual([boleto.fine_tax, boleto.late_interest_tax, boleto.fine_cents], [2, 1, 0]);
      const taxes = await db
        .selectFrom('payment_plan_taxes')
        .select(['installments', 'fixed_cents', 'percentage'])
        .where('payment_plan_id', '=', card.id)
        .orderBy('installments')
        .execute();
      assert.deepEqual(taxes, [
        { installments: 2, fixed_cents: 50, percentage: 1.79 },
        { installments: 3, fixed_cents: 50, percentage: 2.39 },
        { installments: 12, fixed_cents: 0, percentage: 9.99 },
      ]);

      const promo = await db
        .selectFrom('coupons')
        .selectAll()
        .where('id', '=', first.coupons.PROMO10!)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [promo.code, promo.type, promo.percentage, promo.amount_cents, promo.usage_limit],
        ['PROMO10', 'percentage', 10, null, 100],
      );
      assert.equal(promo.expires_at?.toISOString(), '2030-01-01T00:00:00.000Z');
      const restricted = await db
        .selectFrom('coupon_products')
        .select('product_id')
        .where('coupon_id', '=', promo.id)
        .execute();
      assert.deepEqual(restricted, [{ product_id: first.products['ebook-1'] }]);
      const fixed = await db
        .selectFrom('coupons')
        .selectAll()
        .where('id', '=', first.coupons.DESCONTO5!)
        .executeTakeFirstOrThrow();
      assert.deepEqual([fixed.type, fixed.amount_cents, fixed.percentage], ['price', 550, null]);

      const page = await db
        .selectFrom('checkout_pages')
        .selectAll()
        .where('id', '=', first.checkout_pages.ebook!)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [page.main_color, page.gateway, page.enable_coupons, page.company_id],
        ['#0a7cff', 'gateway_a', true, company.id],
      );
      assert.deepEqual(
        [page.upsell_product_id, page.default_payment_plan_id],
        [first.products['ebook-2'], first.payment_plans.card],
      );
      assert.deepEqual(
        [page.menus, page.integrations],
        [[{ label: 'Início', url: 'https://loja.example.com' }], { analytics_id: 'G-EXEMPLO' }],
      );
      const pageProducts = await db
        .selectFrom('checkout_page_products')
        .select(['product_id', 'position', 'allow_quantity', 'max_quantity', 'recommended'])
        .orderBy('position')
        .execute();
      assert.deepEqual(pageProducts, [
        {
          product_id: first.products['ebook-1'],
          position: 0,
          allow_quantity: true,
          max_quantity: 5,
          recommended: false,
        },
        { product_id: first.products.avental, position: 1, allow_quantity: false, max_quantity: 1, recommended: true },
      ]);
      assert.deepEqual(
        await planIdsOf('checkout_page_payment_plans'),
        [first.payment_plans.card, first.payment_plans.pix].sort(),
      );
      const cart = await db
        .selectFrom('cart_pages')
        .selectAll()
        .where('id', '=', first.cart_pages.carrinho!)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [cart.name, cart.gateway, cart.main_color, cart.default_payment_plan_id],
        ['Carrinho', 'gateway_b', '#222222', first.payment_plans.card],
      );
      assert.deepEqual(await planIdsOf('cart_page_payment_plans'), Object.values(first.payment_plans).sort());
    });

    async function planIdsOf(table: 'checkout_page_payment_plans' | 'cart_page_payment_plans'): Promise<number[]> {
      const rows = await database.db.selectFrom(table).select('payment_plan_id').execute();
      return rows.map((row) => row.payment_plan_id).sort();
    }

    test('the returned API key authenticates the account', async () => {
      const verified = await verifyKey(database.db, first.api_key!, new Date());
      assert.equal(verified?.accountId, first.account_id);
    });

    /** What a re-apply must leave as it was: update stamps, schedule row ids and sealed ciphertexts. */
    async function rowVersions(): Promise<unknown[]> {
      const db = database.db;
      return Promise.all([
        db.selectFrom('accounts').select(['id', 'updated_at']).execute(),
        db.selectFrom('companies').select(['id', 'updated_at']).execute(),
        db
          .selectFrom('company_gateways')
          .select(['gateway', 'updated_at', 'secret_encrypted'])
          .orderBy('gateway')
          .execute(),
        db
          .selectFrom('company_webhook_credentials')
          .select(['receiver', 'secret_encrypted', 'rotated_at'])
          .orderBy('receiver')
          .execute(),
        db.selectFrom('company_schedules').select('id').orderBy('id').execute(),
        db.selectFrom('products').select(['id', 'updated_at']).orderBy('id').execute(),
        db.selectFrom('payment_plans').select(['id', 'updated_at']).orderBy('id').execute(),
        db.selectFrom('coupons').select(['id', 'updated_at']).orderBy('id').execute(),
        db.selectFrom('checkout_pages').select(['id', 'updated_at']).orderBy('id').execute(),
        db.selectFrom('cart_pages').select(['id', 'updated_at']).orderBy('id').execute(),
      ]);
    }

    test('applying the same document again creates nothing and rewrites nothing', async () => {
      const counts = await countRows(database);
      const versions = await rowVersions();
      const second = await applyMerchant(database, masterKey, example(), { now: new Date() });
      assert.deepEqual(second, { ...first, api_key: null, created: false });
      assert.deepEqual(await countRows(database), counts);
      assert.deepEqual(await rowVersions(), versions);
    });

    test('a changed document updates the same rows in place', async () => {
      const counts = await countRows(database);
      const document = example();
      const company = document.companies[0]!;
      company.products![0]!.value = 107.5;
      company.payment_plans![0]!.taxes = company.payment_plans![0]!.taxes!.filter((tax) => tax.installments !== 3);
      company.checkout_pages![0]!.products = [{ product: 'ebook-2', max_quantity: 2 }];
      company.checkout_pages![0]!.payment_plans = ['card'];
      company.checkout_pages![0]!.asks_payer_identity = true;
      company.coupons![0]!.product_external_ids = ['ebook-2', 'avental'];
      company.webhook_credentials![1]!.secret = 'whsec_nova_assinatura';
      const changed = await applyMerchant(database, masterKey, document, { now: new Date() });

      assert.deepEqual(changed, { ...first, api_key: null, created: false });
      const db = database.db;
      const ebook = await db
        .selectFrom('products')
        .select('value_cents')
        .where('id', '=', first.products['ebook-1']!)
        .executeTakeFirstOrThrow();
      assert.equal(ebook.value_cents, 10750);
      const taxes = await db
        .selectFrom('payment_plan_taxes')
        .select('installments')
        .where('payment_plan_id', '=', first.payment_plans.card!)
        .orderBy('installments')
        .execute();
      assert.deepEqual(
        taxes.map((tax) => tax.installments),
        [2, 12],
      );
      const pageProducts = await db
        .selectFrom('checkout_page_products')
        .select(['product_id', 'max_quantity'])
        .where('checkout_page_id', '=', first.checkout_pages.ebook!)
        .execute();
      assert.deepEqual(pageProducts, [{ product_id: first.products['ebook-2'], max_quantity: 2 }]);
      const asks = await db
        .selectFrom('checkout_pages')
        .select('asks_payer_identity')
        .where('id', '=', first.checkout_pages.ebook!)
        .executeTakeFirstOrThrow();
      assert.equal(asks.asks_payer_identity, true, 'the page now asks the payer for Pix and card too');
      assert.deepEqual(await planIdsOf('checkout_page_payment_plans'), [first.payment_plans.card]);
      const restricted = await db
        .selectFrom('coupon_products')
        .select('product_id')
        .where('coupon_id', '=', first.coupons.PROMO10!)
        .execute();
      assert.deepEqual(
        restricted.map((row) => row.product_id).sort(),
        [first.products['ebook-2'], first.products.avental].sort(),
      );
      const signing = await db
        .selectFrom('company_webhook_credentials')
        .selectAll()
        .where('receiver', '=', 'gateway_b')
        .executeTakeFirstOrThrow();
      assert.equal(unseal(masterKey, signing.secret_encrypted), 'whsec_nova_assinatura');
      assert.equal(unseal(masterKey, signing.previous_secret_encrypted!), 'whsec_loja_exemplo_assinatura');
      assert.ok(signing.rotated_at instanceof Date);
      assert.deepEqual(await countRows(database), {
        ...counts,
        payment_plan_taxes: counts.payment_plan_taxes! - 1,
        checkout_page_products: counts.checkout_page_products! - 1,
        checkout_page_payment_plans: counts.checkout_page_payment_plans! - 1,
        coupon_products: counts.coupon_products! + 1,
      });
    });

    test('a company slug owned by another account is refused without changing anything', async () => {
      const counts = await countRows(database);
      const intruder = example();
      intruder.account = { name: 'Outra Loja', slug: 'outra-loja' };
      await assert.rejects(applyMerchant(database, masterKey, intruder, { now: new Date() }), (error: Error) => {
        assert.ok(error instanceof MerchantApplyError);
        assert.match(error.message, /company slug already belongs to another account: loja-exemplo/);
        return true;
      });
      assert.deepEqual(await countRows(database), counts);
      const company = await database.db
        .selectFrom('companies')
        .select('account_id')
        .where('slug', '=', 'loja-exemplo')
        .executeTakeFirstOrThrow();
      assert.equal(company.account_id, first.account_id);
    });

    test('a failure late in the apply rolls back the earlier writes', async () => {
      await database.db
        .updateTable('coupons')
        .set({ used_count: 50 })
        .where('id', '=', first.coupons.PROMO10!)
        .execute();
      const document = example();
      document.account.name = 'Nome Novo';
      document.companies[0]!.coupons![0]!.usage_limit = 10;
      await assert.rejects(
        applyMerchant(database, masterKey, document, { now: new Date() }),
        /usage_limit 10 is below the 50 uses/,
      );
      const account = await database.db
        .selectFrom('accounts')
        .select('name')
        .where('id', '=', first.account_id)
        .executeTakeFirstOrThrow();
      assert.equal(account.name, 'Loja Exemplo');
    });

    test('rotateKey stores a new key, and a given key is stored once', async () => {
      const rotated = await applyMerchant(database, masterKey, example(), { rotateKey: true, now: new Date() });
      assert.notEqual(rotated.api_key, null);
      assert.equal((await verifyKey(database.db, rotated.api_key!, new Date()))?.accountId, first.account_id);
      assert.equal(
        (await verifyKey(database.db, first.api_key!, new Date()))?.accountId,
        first.account_id,
        'earlier keys stay valid',
      );

      const given = generateKey();
      assert.equal(
        (await applyMerchant(database, masterKey, example(), { apiKey: given, now: new Date() })).api_key,
        given.plaintext,
      );
      assert.equal(
        (await applyMerchant(database, masterKey, example(), { apiKey: given, now: new Date() })).api_key,
        null,
      );
      assert.equal((await verifyKey(database.db, given.plaintext, new Date()))?.accountId, first.account_id);
    });

    test('an invalid document built in code is refused before anything is written', async () => {
      const counts = await countRows(database);
      const document = example();
      document.account.slug = 'nova-loja';
      document.companies[0]!.slug = 'nova-loja';
      document.companies[0]!.products![0]!.value = 1.001;
      await assert.rejects(applyMerchant(database, masterKey, document, { now: new Date() }), MerchantDocumentError);
      assert.deepEqual(await countRows(database), counts);
    });
  });
}

describe('merchant document validation', () => {
  /** Serialises an edited example as JSON, which the YAML parser accepts, and returns the error message. */
  function problemsOf(edit: (document: MerchantDocument & Record<string, unknown>) => void): string {
    const document = example() as MerchantDocument & Record<string, unknown>;
    edit(document);
    try {
      parseMerchantDocument(JSON.stringify(document), 'edited.json');
    } catch (error) {
      assert.ok(error instanceof MerchantDocumentError, `expected MerchantDocumentError, got ${String(error)}`);
      assert.doesNotMatch(error.message, /\n\s+at .*:\d+:\d+/, 'no stack trace in the message');
      return error.message;
    }
    assert.fail('the document was accepted');
  }

  test('the example is valid', () => {
    assert.equal(example().companies[0]!.slug, 'loja-exemplo');
  });

  test('a colour that is not #rrggbb is refused with its path', () => {
    const message = problemsOf((d) => (d.companies[0]!.checkout_pages![0]!.main_color = 'blue'));
    assert.match(message, /companies\[0\]\.checkout_pages\[0\]\.main_color: must be a colour as #rrggbb/);
  });

  test('an unknown product reference is named', () => {
    const message = problemsOf((d) => (d.companies[0]!.checkout_pages![0]!.products![0]!.product = 'ebook-9'));
    assert.match(message, /companies\[0\]\.checkout_pages\[0\]\.products\[0\]\.product: unknown product "ebook-9"/);
  });

  test('an unknown payment plan reference is named', () => {
    const message = problemsOf((d) => (d.companies[0]!.cart_pages![0]!.payment_plans = ['card', 'crediario']));
    assert.match(message, /companies\[0\]\.cart_pages\[0\]\.payment_plans\[1\]: unknown payment plan "crediario"/);
  });

  test('a coupon expiry JavaScript cannot read (an hour-only offset, a leap second) is refused with its path', () => {
    for (const expiresAt of ['2030-01-01T00:00:00+03', '2030-01-01T23:59:60Z']) {
      const message = problemsOf((d) => (d.companies[0]!.coupons![0]!.expires_at = expiresAt));
      assert.match(message, /companies\[0\]\.coupons\[0\]\.expires_at/, expiresAt);
    }
  });

  test('a price with three decimals is refused', () => {
    const message = problemsOf((d) => (d.companies[0]!.products![1]!.value = 47.999));
    assert.match(message, /companies\[0\]\.products\[1\]\.value: 47\.999 has more than two decimals/);
  });

  test('two primary companies are refused', () => {
    const message = problemsOf((d) => d.companies.push({ slug: 'filial', name: 'Filial', primary: true }));
    assert.match(message, /companies: exactly one company must have primary: true, found 2/);
  });

  test('an unknown field is refused', () => {
    const message = problemsOf((d) => Object.assign(d.account, { colour: '#ffffff' }));
    assert.match(message, /account\.colour: is not a known field/);
  });

  test('every problem is listed, one per line', () => {
    const message = problemsOf((d) => {
      d.companies[0]!.products![2]!.interval = undefined;
      d.companies[0]!.coupons![0]!.value = 150;
      d.companies[0]!.time_zone = 'America/Atlantis';
    });
    assert.match(message, /^ {2}companies\[0\]\.time_zone: "America\/Atlantis" is not an IANA time zone$/m);
    assert.match(message, /^ {2}companies\[0\]\.products\[2\]\.interval: is required for a subscription product/m);
    assert.match(message, /^ {2}companies\[0\]\.coupons\[0\]\.value: a percentage coupon must be at most 100$/m);
  });

  test('a YAML syntax error reports its position', () => {
    assert.throws(
      () => parseMerchantDocument('account: [\n', 'broken.yaml'),
      (error: Error) => {
        assert.ok(error instanceof MerchantDocumentError);
        assert.match(error.message, /^invalid merchant document broken\.yaml\n {2}line \d+, column \d+: /);
        return true;
      },
    );
  });
});
