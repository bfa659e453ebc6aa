import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { applyMerchant } from '../../src/modules/merchant-file/merchant-apply.ts';
import {
  MerchantDocumentError,
  parseMerchantDocument,
  validateMerchantDocument,
  type MerchantDocument,
} from '../../src/modules/merchant-file/merchant-document.ts';
import { engines } from '../support/engines.ts';

const EXAMPLE = readFileSync(new URL('../../examples/merchant.yaml', import.meta.url), 'utf8');
const example = (): MerchantDocument => parseMerchantDocument(EXAMPLE, 'merchant.yaml');

/** The example with one line of its YAML replaced: values JSON cannot carry (.inf, -0) stay as YAML wrote them. */
function exampleYaml(from: string, to: string): string {
  assert.ok(EXAMPLE.includes(from), `the example contains ${from}`);
  return EXAMPLE.replace(from, to);
}

/** The error message for an edited example, validated as an object (so NUL, Infinity and -0 reach the checks). */
function problemsOf(edit: (document: MerchantDocument) => void): string {
  const document = example();
  edit(document);
  return messageOf(() => validateMerchantDocument(document, 'edited'));
}

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof MerchantDocumentError, `expected MerchantDocumentError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('the document was accepted');
}

function accepts(edit: (document: MerchantDocument) => void): boolean {
  const document = example();
  edit(document);
  try {
    validateMerchantDocument(document);
    return true;
  } catch (error) {
    if (error instanceof MerchantDocumentError) return false;
    throw error;
  }
}

const page = (document: MerchantDocument) => document.companies[0]!.checkout_pages![0]!;

describe('merchant document: time zones', () => {
  test('names PostgreSQL does not know or reads as an abbreviation are refused with what is accepted; canonical names and UTC pass', () => {
    for (const zone of ['US/Pacific-New', 'CET', 'EET', 'WET', 'MET', 'EST', 'MST', 'HST']) {
      const message = problemsOf((d) => (d.companies[0]!.time_zone = zone));
      assert.match(
        message,
        new RegExp(
          `^ {2}companies\\[0\\]\\.time_zone: "${zone}" is not accepted: use a canonical IANA time zone name \\(Area/City, as America/Sao_Paulo\\) or UTC`,
          'm',
        ),
        zone,
      );
    }
    for (const zone of [
      'America/Sao_Paulo',
      'UTC',
      'Europe/Lisbon',
      'Asia/Tokyo',
      'Australia/Sydney',
      'America/New_York',
      'Asia/Kolkata',
      'Europe/Kyiv',
      'America/Nuuk',
    ]) {
      assert.ok(
        accepts((d) => (d.companies[0]!.time_zone = zone)),
        zone,
      );
    }
  });

  test('another spelling of an accepted name is refused with the name to write', () => {
    const message = problemsOf((d) => (d.companies[0]!.time_zone = 'america/sao_paulo'));
    assert.match(
      message,
      /companies\[0\]\.time_zone: "america\/sao_paulo" is not accepted: .*; write "America\/Sao_Paulo"$/m,
    );
  });
});

describe('merchant document: strings the database cannot store', () => {
  test('the NUL character is refused with its path, in typed fields and free-form values', () => {
    const message = problemsOf((d) => {
      d.account.name = 'Loja\u0000';
      d.companies[0]!.products![0]!.name = 'E-book\u0000X';
      d.companies[0]!.gateways![0]!.secret_key = 'sk\u0000';
      d.companies[0]!.gateways![0]!.settings = { descriptor: 'v\u0000' };
      page(d).menus = [{ label: 'a\u0000', url: 'https://loja.example.com' }];
      page(d).integrations = { nested: { deep: ['x', 'y\u0000'] } };
      d.notification_endpoints = [{ url: 'https://erp.example.com/h', description: 'x\u0000' }];
    });
    for (const path of [
      'account\\.name',
      'companies\\[0\\]\\.products\\[0\\]\\.name',
      'companies\\[0\\]\\.gateways\\[0\\]\\.secret_key',
      'companies\\[0\\]\\.gateways\\[0\\]\\.settings\\.descriptor',
      'companies\\[0\\]\\.checkout_pages\\[0\\]\\.menus\\[0\\]\\.label',
      'companies\\[0\\]\\.checkout_pages\\[0\\]\\.integrations\\.nested\\.deep\\[1\\]',
      'notification_endpoints\\[0\\]\\.description',
    ]) {
      assert.match(message, new RegExp(`^ {2}${path}: must not contain the NUL character \\(U\\+0000\\)$`, 'm'), path);
    }
    assert.doesNotMatch(message, /sk\u0000/, 'the secret is not echoed');
  });

  test('an unpaired surrogate is refused, also when a YAML escape writes it; paired ones (emoji) pass', () => {
    const fromYaml = messageOf(() =>
      parseMerchantDocument(exampleYaml('name: E-book Sobremesas', 'name: "E-book Sobremesas \\uD83D"'), 'odd.yaml'),
    );
    assert.match(fromYaml, /^ {2}companies\[0\]\.products\[1\]\.name: must not contain an unpaired UTF-16 surrogate/m);
    const inMenus = problemsOf((d) => (page(d).menus = [{ label: 'Início \udc00', url: 'https://loja.example.com' }]));
    assert.match(
      inMenus,
      /^ {2}companies\[0\]\.checkout_pages\[0\]\.menus\[0\]\.label: must not contain an unpaired UTF-16 surrogate/m,
    );
    assert.ok(accepts((d) => (d.companies[0]!.products![0]!.name = 'Receitas 😀 Açaí')));
  });

  test('an object key with NUL or an unpaired surrogate is refused at its object, without echoing the key', () => {
    const message = problemsOf((d) => {
      d.companies[0]!.gateways![0]!.settings = { 'bad\u0000key': 1 };
      page(d).integrations = { ['\ud800']: 'v' };
    });
    assert.match(
      message,
      /^ {2}companies\[0\]\.gateways\[0\]\.settings: has a key with the NUL character \(U\+0000\)$/m,
    );
    assert.match(
      message,
      /^ {2}companies\[0\]\.checkout_pages\[0\]\.integrations: has a key with an unpaired UTF-16 surrogate/m,
    );
    assert.doesNotMatch(message, /bad/);
  });
});

describe('merchant document: numbers', () => {
  test('.inf, -.inf and .nan are refused with their path wherever they are', () => {
    const yaml = exampleYaml('statement_descriptor: LOJAEXEMPLO', 'statement_descriptor: LOJAEXEMPLO, retries: .inf')
      .replace('integrations: { analytics_id: G-EXEMPLO }', 'integrations: { analytics_id: G-EXEMPLO, ratio: .nan }')
      .replace(
        'menus: [{ label: Início, url: "https://loja.example.com" }]',
        'menus: [{ label: Início, url: "https://loja.example.com", order: -.inf }]',
      );
    const message = messageOf(() => parseMerchantDocument(yaml, 'odd.yaml'));
    assert.match(
      message,
      /^ {2}companies\[0\]\.gateways\[0\]\.settings\.retries: must be a finite number, not Infinity$/m,
    );
    assert.match(
      message,
      /^ {2}companies\[0\]\.checkout_pages\[0\]\.integrations\.ratio: must be a finite number, not NaN$/m,
    );
    assert.match(
      message,
      /^ {2}companies\[0\]\.checkout_pages\[0\]\.menus\[0\]\.order: must be a finite number, not -Infinity$/m,
    );
  });

  test('a non-finite number in a typed field is refused too', () => {
    const message = problemsOf((d) => (d.companies[0]!.products![3]!.weight = Number.POSITIVE_INFINITY));
    assert.match(message, /^ {2}companies\[0\]\.products\[3\]\.weight: must be a finite number, not Infinity$/m);
  });

  test('-0 is read as 0', () => {
    const yaml = exampleYaml('weight: 300', 'weight: -0').replace(
      'statement_descriptor: LOJAEXEMPLO',
      'statement_descriptor: LOJAEXEMPLO, retries: -0',
    );
    const document = parseMerchantDocument(yaml, 'zero.yaml');
    assert.ok(Object.is(document.companies[0]!.products![3]!.weight, 0));
    assert.ok(Object.is(document.companies[0]!.gateways![0]!.settings!.retries, 0));
  });
});

describe('merchant document: URLs and allowed hosts', () => {
  test('URLs WHATWG cannot parse, without a host or with a bad port are refused in every URL field; ordinary ones pass', () => {
    for (const url of [
      'http://',
      'https://',
      'https://:443/',
      'http://x:99999/',
      'https://#f',
      'https://?q',
      'http:///path',
      'http://x:0/',
    ]) {
      const message = problemsOf((d) => {
        page(d).redirect_url = url;
        page(d).logo = url;
        d.companies[0]!.cart_pages![0]!.logo = url;
        d.companies[0]!.products![0]!.image = url;
        d.notification_endpoints = [{ url }];
      });
      for (const path of [
        'companies\\[0\\]\\.checkout_pages\\[0\\]\\.redirect_url',
        'companies\\[0\\]\\.checkout_pages\\[0\\]\\.logo',
        'companies\\[0\\]\\.cart_pages\\[0\\]\\.logo',
        'companies\\[0\\]\\.products\\[0\\]\\.image',
        'notification_endpoints\\[0\\]\\.url',
      ]) {
        assert.match(
          message,
          new RegExp(`^ {2}${path}: (is not a URL|must name a host after //|must have a port from 1 to 65535)$`, 'm'),
          `${url} at ${path}`,
        );
      }
    }
    assert.ok(
      accepts((d) => {
        page(d).redirect_url = 'https://loja.example.com:8443/obrigado?x=1#y';
        d.companies[0]!.products![0]!.image = 'http://[::1]:8080/a.png';
      }),
    );
  });

  test('an allowed host with a port outside 1 to 65535 is refused; 65535 is accepted', () => {
    const message = problemsOf(
      (d) => (d.account.allowed_hosts = ['shop.example.com:99999', 'shop.example.com:0', 'shop.example.com:65535']),
    );
    assert.match(
      message,
      /^ {2}account\.allowed_hosts\[0\]: "shop\.example\.com:99999" has a port outside 1 to 65535$/m,
    );
    assert.match(message, /^ {2}account\.allowed_hosts\[1\]: "shop\.example\.com:0" has a port outside 1 to 65535$/m);
    assert.doesNotMatch(message, /allowed_hosts\[2\]/);
  });
});

describe('merchant document: webhook usernames', () => {
  test('two companies of the file with one username for a receiver are refused with the path of the second', () => {
    const message = problemsOf((d) => {
      d.companies[0]!.primary = true;
      d.companies.push({
        slug: 'segunda-loja',
        name: 'Segunda Loja',
        webhook_credentials: [{ receiver: 'gateway_a', username: 'loja-exemplo-ga', password: 'outra-senha' }],
      });
    });
    assert.match(
      message,
      /companies\[1\]\.webhook_credentials\[0\]\.username: duplicate webhook username \(receiver: username\) "gateway_a: loja-exemplo-ga"/,
    );
  });
});

for (const engine of engines()) {
  describe(`merchant document input on ${engine.name}`, () => {
    let database: Database;
    const masterKey = randomBytes(32);
    before(async () => (database = await engine.open()));
    after(() => database.close());

    test('every time zone the document accepts is a zone name the database reads the same way (not an abbreviation)', async () => {
      const names = (await sql<{ name: string }>`SELECT name FROM pg_timezone_names`.execute(database.db)).rows.map(
        (row) => row.name,
      );
      const abbreviations = new Set(
        (await sql<{ abbrev: string }>`SELECT abbrev FROM pg_timezone_abbrevs`.execute(database.db)).rows.map(
          (row) => row.abbrev,
        ),
      );
      const known = new Set(names);
      const candidates = new Set([
        ...Intl.supportedValuesOf('timeZone'),
        ...names,
        ...abbreviations,
        'US/Pacific-New',
        'UTC',
      ]);
      const document = example();
      const wrong: string[] = [];
      for (const zone of candidates) {
        document.companies[0]!.time_zone = zone;
        let accepted = true;
        try {
          validateMerchantDocument(document);
        } catch (error) {
          if (!(error instanceof MerchantDocumentError)) throw error;
          accepted = false;
        }
        if (accepted && (!known.has(zone) || (abbreviations.has(zone) && zone !== 'UTC'))) wrong.push(zone);
      }
      assert.deepEqual(wrong, []);
    });

    test('two applies of a new account at once: one creates it, the other updates it, neither fails', async () => {
      const document = () => {
        const d = example();
        d.account.slug = `concurrent-${randomBytes(4).toString('hex')}`;
        d.companies[0]!.slug = d.account.slug;
        d.companies[0]!.webhook_credentials = [];
        return d;
      };
      const first = document();
      const second = { ...first };
      const results = await Promise.all([
        applyMerchant(database, masterKey, first, { now: new Date() }),
        applyMerchant(database, masterKey, second, { now: new Date() }),
      ]);
      assert.deepEqual(results.map((result) => result.created).sort(), [false, true]);
      assert.equal(results[0].account_id, results[1].account_id);
    });

    test('a document with -0 (typed and free-form) applied again rewrites nothing', async () => {
      const yaml = exampleYaml('weight: 300', 'weight: -0')
        .replace('value: 47\n', 'value: -0\n')
        .replace('statement_descriptor: LOJAEXEMPLO', 'statement_descriptor: LOJAEXEMPLO, retries: -0')
        .replace('integrations: { analytics_id: G-EXEMPLO }', 'integrations: { analytics_id: G-EXEMPLO, ratio: -0.0 }');
      const first = await applyMerchant(database, masterKey, parseMerchantDocument(yaml, 'zero.yaml'), {
        now: new Date(),
      });
      const stamps = async () =>
        JSON.stringify({
          products: await database.db
            .selectFrom('products')
            .select(['id', 'updated_at'])
            .where('account_id', '=', first.account_id)
            .orderBy('id')
            .execute(),
          gateways: await database.db
            .selectFrom('company_gateways')
            .select(['gateway', 'updated_at'])
            .where('account_id', '=', first.account_id)
            .orderBy('gateway')
            .execute(),
          pages: await database.db
            .selectFrom('checkout_pages')
            .select(['id', 'updated_at'])
            .where('account_id', '=', first.account_id)
            .orderBy('id')
            .execute(),
        });
      const before = await stamps();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await applyMerchant(database, masterKey, parseMerchantDocument(yaml, 'zero.yaml'), { now: new Date() });
      assert.equal(await stamps(), before);
    });
  });
}
