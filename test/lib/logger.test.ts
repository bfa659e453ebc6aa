import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, REDACTED_PATHS } from '../../src/lib/logger.ts';
import { LogCapture } from '../support/app.ts';

const SECRET = 'sk_live_do_not_log_me';

function logged(write: (logger: ReturnType<typeof createLogger>) => void): {
  text: string;
  entries: Record<string, unknown>[];
} {
  const capture = new LogCapture();
  write(createLogger('info', capture));
  return { text: capture.text, entries: capture.lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

test('every sensitive field is censored at the top of a log object and one level down; other fields stay', () => {
  const fields = [
    'password',
    'secret',
    'token',
    'api_key',
    'apiKey',
    'master_key',
    'authorization',
    'confirmation_token_id',
    'credit_card_0_token',
    'credit_card_1_token',
  ];
  for (const field of fields) {
    const { text, entries } = logged((logger) => {
      logger.info({ [field]: SECRET, kept: 'visible' }, 'top level');
      logger.info({ body: { [field]: SECRET, kept: 'visible' } }, 'nested');
    });
    assert.ok(!text.includes(SECRET), field);
    assert.equal(entries[0]![field], '[Redacted]');
    assert.deepEqual(entries[1]!.body, { [field]: '[Redacted]', kept: 'visible' });
    assert.equal(entries[0]!.kept, 'visible');
  }
  assert.ok(REDACTED_PATHS.includes('*.password') && REDACTED_PATHS.includes('*.headers["authorization"]'));
});

test('sensitive headers of any logged object are censored; the logged object itself is not modified', () => {
  const request = {
    method: 'POST',
    headers: {
      authorization: `Bearer ${SECRET}`,
      cookie: SECRET,
      'gateway-b-signature': SECRET,
      'x-api-key': SECRET,
      host: 'shop.example',
    },
  };
  const response = { statusCode: 200, headers: { 'set-cookie': SECRET } };
  const { text, entries } = logged((logger) => logger.info({ request, response }, 'exchange'));
  assert.ok(!text.includes(SECRET));
  assert.equal((entries[0]!.request as { headers: Record<string, string> }).headers.host, 'shop.example');
  assert.equal(request.headers.authorization, `Bearer ${SECRET}`, 'the caller’s object is untouched');
});

test('an error with a sensitive property is still logged as an error, without the secret', () => {
  const error = Object.assign(new Error('gateway refused'), { token: SECRET, code: 'E_GATEWAY' });
  const { text, entries } = logged((logger) => logger.error({ err: error }, 'failed'));
  assert.ok(!text.includes(SECRET));
  const err = entries[0]!.err as Record<string, unknown>;
  assert.equal(err.message, 'gateway refused');
  assert.equal(err.code, 'E_GATEWAY');
  assert.equal(err.type, 'Error');
  assert.match(String(err.stack), /gateway refused/);
  assert.equal(error.token, SECRET);
});

test('child bindings are censored too', () => {
  const { text, entries } = logged((logger) => logger.child({ reqId: 'r-1', token: SECRET }).info('bound'));
  assert.ok(!text.includes(SECRET));
  assert.equal(entries[0]!.reqId, 'r-1');
});
