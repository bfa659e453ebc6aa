import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { maskSensitiveText, redactUrl } from '../../src/lib/log-masking.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { LogCapture } from '../support/app.ts';

const KEY = 'ck_0123456789abcdef_TT8ZzjJc5GR9oLWHS8xOFLbL4QLSk4XclzQeQZmw2vU';
const UUID = '50589732-5864-4002-9a6b-123456789012';

describe('logged URLs', () => {
  test('personal data in query values is masked: CPF, e-mail (raw and encoded), phone, names in q', () => {
    const cases: Array<[string, string]> = [
      ['/api/v1/orders?q=52998224725', '/api/v1/orders?q=[Redacted]'],
      ['/api/v1/orders?q=529.982.247-25&page=2', '/api/v1/orders?q=[Redacted]&page=2'],
      ['/api/v1/orders?q=ana%40example.com', '/api/v1/orders?q=[Redacted]'],
      ['/api/v1/orders?q=Maria+Silva&limit=10', '/api/v1/orders?q=[Redacted]&limit=10'],
      ['/api/v1/orders?meta[]=cpf:11144477735', '/api/v1/orders?meta[]=[Redacted]'],
      ['/api/v1/orders?meta[]=contato:(11)%2098765-4321', '/api/v1/orders?meta[]=[Redacted]'],
      ['/api/v1/x?customer_name=Ana&email=a%40b.co', '/api/v1/x?customer_name=[Redacted]&email=[Redacted]'],
      ['/api/v1/x?doc=11.222.333%2F0001-81', '/api/v1/x?doc=[Redacted]'],
    ];
    for (const [url, logged] of cases) assert.equal(redactUrl(url), logged, url);
  });

  test('keys, tokens and secrets are masked in paths and queries', () => {
    assert.equal(redactUrl(`/api/v1/orders/${KEY}`), '/api/v1/orders/[Redacted]');
    assert.equal(redactUrl(`/api/v1/orders/${KEY}/x?page=1`), '/api/v1/orders/[Redacted]/x?page=1');
    assert.equal(redactUrl(`/api/v1/products?q=${KEY}`), '/api/v1/products?q=[Redacted]');
    assert.equal(redactUrl(`/api/v1/products?ref=${KEY}`), '/api/v1/products?ref=[Redacted]');
    assert.equal(redactUrl('/a?token=xyz&page=2&api_key=k'), '/a?token=[Redacted]&page=2&api_key=[Redacted]');
    assert.equal(redactUrl('/pay/status/tok_abcdef123456'), '/pay/status/[Redacted]');
  });

  test('what is not personal stays readable: ids, dates, statuses, order ids and uids searched', () => {
    for (const url of [
      `/api/v1/payment_plans?cart_id=${UUID}&products[12]=2&coupon=DEMO10`,
      '/api/v1/orders?initial_date=2024-01-01&final_date=2024-02-01&status[]=paid&company_ids[]=3',
      '/api/v1/orders?q=12345',
      `/api/v1/orders?q=${UUID}`,
      '/api/v1/orders?q=',
      `/api/v1/checkout_pages/${UUID}/payments?ids[]=ch_abc`,
      '/api/v1/webhooks/12/gateway_b',
    ])
      assert.equal(redactUrl(url), url);
  });
});

describe('logged text', () => {
  test('shapes of personal data and credentials are masked; UUIDs and slugs are kept', () => {
    assert.equal(
      maskSensitiveText(
        `Key (email)=(ana@example.com) cpf 52998224725 cnpj 11.222.333/0001-81 tel +55 11 98765-4321 ${KEY} ` +
          `Bearer abc.def-123 eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl request ${UUID} slug curso-de-violao-para-iniciantes-avancados`,
      ),
      `Key (email)=([Redacted]) cpf [Redacted] cnpj [Redacted] tel [Redacted] [Redacted] [Redacted] [Redacted] ` +
        `request ${UUID} slug curso-de-violao-para-iniciantes-avancados`,
    );
    assert.equal(maskSensitiveText('hash aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gH3kL'), 'hash [Redacted]');
    assert.equal(maskSensitiveText('job 42 attempt 3 of 10, order 1234567'), 'job 42 attempt 3 of 10, order 1234567');
  });

  test('the logger masks personal fields by name, text by shape, error messages and details, and messages', () => {
    const logs = new LogCapture();
    const logger = createLogger('trace', logs);
    const error = Object.assign(new Error('duplicate key: (email)=(ana@example.com)'), {
      detail: 'Key (identification)=(52998224725) already exists.',
    });
    logger.info({ customer: { email: 'ana@example.com' }, name: 'Ana Souza', phone: '11987654321' }, 'upsert');
    logger.info({ body: { name: 'Ana Souza', identification: '52998224725', note: 'ligar 11987654321', qty: 2 } });
    logger.warn({ error: `gateway refused ana@example.com with ${KEY}` }, 'job failed');
    logger.error({ err: error }, 'unhandled error');
    logger.info(`customer ana@example.com searched by ${KEY}`);
    logger.child({ reqId: UUID, email: 'ana@example.com' }).info('bound');
    for (const secret of ['ana@example.com', 'Ana Souza', '52998224725', '11987654321', KEY])
      assert.equal(logs.text.includes(secret), false, `${secret} in ${logs.text}`);
    const lines = logs.lines.map((line) => JSON.parse(line));
    assert.equal(lines[1].body.qty, 2);
    assert.equal(lines[3].err.type, 'Error');
    assert.match(lines[3].err.message, /^duplicate key: \(email\)=\(\[Redacted\]\)$/);
    assert.equal(lines[3].err.detail, 'Key (identification)=([Redacted]) already exists.');
    assert.equal(lines[4].msg, 'customer [Redacted] searched by [Redacted]');
    assert.equal(lines[5].reqId, UUID);
  });

  test('with a log file every line of every level is appended to it, whatever the logger’s own level', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'logs-')), 'run.log');
    const logs = new LogCapture();
    createLogger('warn', logs, file).debug({ phone: '11987654321' }, 'verbose');
    createLogger('silent', undefined, file).trace('quietest');
    createLogger('warn', logs, file).warn('kept in both');
    const written = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      written.map((line) => [line.level, line.msg, line.phone]),
      [
        [20, 'verbose', '[Redacted]'],
        [10, 'quietest', undefined],
        [40, 'kept in both', undefined],
      ],
    );
    assert.deepEqual(
      logs.lines.map((line) => JSON.parse(line).msg),
      ['kept in both'],
      'the logger’s own destination keeps its level',
    );
  });
});
