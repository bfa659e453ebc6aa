/** Property tests: every BR Code we generate is read the same way by two parsers that are not ours. */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getPixPayloadInfo, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import fc from 'fast-check';
import { hasError, parsePix } from 'pix-utils';
import { buildPixBrCode, parsePixBrCode, pixTxid, type PixBrCodeInput } from '../../src/brazil/pix.ts';

const MAX_TEST_AMOUNT_CENTS = 999_999_999; // R$ 9.999.999,99
const LETTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZáàâãéêíóôõúüçÁÀÂÃÉÊÍÓÔÕÚÜÇ'];
const wordOf = (maxLength: number) =>
  fc.array(fc.constantFrom(...LETTERS), { minLength: 1, maxLength }).map((chars) => chars.join(''));
// Names with accents, odd spacing and lengths on both sides of the 25/15 limits.
const displayText = fc
  .array(wordOf(12), { minLength: 1, maxLength: 5 })
  .chain((words) => fc.constantFrom(' ', '  ', '\t').map((separator) => ` ${words.join(separator)} `));
const asciiDescription = fc.stringMatching(/^[A-Za-z0-9]{1,10}( [A-Za-z0-9]{1,10})?$/);

const cpf = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 9 })
  .filter((d) => new Set(d).size > 1)
  .map(withCpfCheckDigits);
const phone = fc.stringMatching(/^\+55[1-9]{2}9?\d{8}$/);
const email = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9._-]{1,30}$/),
    fc.domain().filter((domain) => domain.length <= 40),
  )
  .map(([local, domain]) => `${local}@${domain}`);
const pixKey = fc.oneof(fc.uuid(), cpf, phone, email);
const staticTxid = fc.oneof(fc.constant('***'), fc.stringMatching(/^[A-Za-z0-9]{1,25}$/));
const amountCents = fc.option(fc.integer({ min: 1, max: MAX_TEST_AMOUNT_CENTS }), { nil: undefined });
const location = fc
  .tuple(fc.domain(), fc.stringMatching(/^[A-Za-z0-9]{8,36}$/))
  .map(([host, id]) => `${host}/qr/v2/${id}`)
  .filter((url) => url.length <= 77);

/** What the spec says the normalised field must be: accents gone, spaces collapsed, cut to the limit. */
function expectedField(text: string, maxLength: number): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').replace(/\s+/g, ' ').trim().slice(0, maxLength).trimEnd();
}

describe('generated BR Codes agree with pix-utils and @brazilian-utils/brazilian-utils', () => {
  test('static codes: same key, amount, txid, name and city read back', () => {
    const input = fc.record({
      key: pixKey,
      amountCents,
      merchantName: displayText,
      merchantCity: displayText,
      txid: staticTxid,
      description: fc.option(asciiDescription, { nil: undefined }),
    });
    fc.assert(
      fc.property(input, (generated) => {
        const fits =
          18 + 4 + generated.key.length + (generated.description ? 4 + generated.description.length : 0) <= 99;
        const request: PixBrCodeInput = { ...generated };
        if (!fits) {
          assert.throws(() => buildPixBrCode(request), /field 26/);
          return;
        }
        const code = buildPixBrCode(request);
        const merchantName = expectedField(generated.merchantName, 25);
        const merchantCity = expectedField(generated.merchantCity, 15).toUpperCase();

        const pixUtils = parsePix(code);
        assert.ok(!hasError(pixUtils), `pix-utils rejected ${code}`);
        assert.equal(pixUtils.type, 'STATIC');
        assert.ok(pixUtils.type === 'STATIC');
        assert.equal(pixUtils.pixKey, generated.key);
        assert.equal(pixUtils.transactionAmount, generated.amountCents === undefined ? 0 : generated.amountCents / 100);
        assert.equal(pixUtils.txid, generated.txid);
        assert.equal(pixUtils.merchantName, merchantName);
        assert.equal(pixUtils.merchantCity, merchantCity);
        assert.equal(pixUtils.infoAdicional, generated.description);

        assert.ok(isValidPixPayload(code), `brazilian-utils rejected ${code}`);
        const info = getPixPayloadInfo(code);
        assert.ok(info !== null);
        assert.equal(info.key, generated.key);
        assert.equal(info.amount, generated.amountCents === undefined ? undefined : generated.amountCents / 100);
        assert.equal(info.txid, generated.txid === '***' ? undefined : generated.txid);
        assert.equal(info.merchantName, merchantName);
        assert.equal(info.merchantCity, merchantCity);
        assert.equal(info.description, generated.description);
        assert.equal(info.pointOfInitiation, 'static');
      }),
      { numRuns: 400 },
    );
  });

  test('dynamic codes: same location, *** as txid, dynamic point of initiation', () => {
    const input = fc.record({
      url: location,
      https: fc.boolean(),
      amountCents,
      merchantName: displayText,
      merchantCity: displayText,
      seed: fc.string({ minLength: 1 }),
    });
    fc.assert(
      fc.property(input, ({ url, https, seed, ...rest }) => {
        const code = buildPixBrCode({ ...rest, locationUrl: https ? `https://${url}` : url, txid: pixTxid(seed) });

        const pixUtils = parsePix(code);
        assert.ok(!hasError(pixUtils), `pix-utils rejected ${code}`);
        assert.ok(pixUtils.type === 'DYNAMIC');
        assert.equal(pixUtils.url, url);

        assert.ok(isValidPixPayload(code), `brazilian-utils rejected ${code}`);
        const info = getPixPayloadInfo(code);
        assert.equal(info?.url, url);
        assert.equal(info?.pointOfInitiation, 'dynamic');
        assert.equal(info?.key, undefined);

        const ours = parsePixBrCode(code);
        assert.equal(ours.txid, '***');
        assert.equal(ours.amountCents, rest.amountCents);
      }),
      { numRuns: 300 },
    );
  });

  test('a single changed character is caught by both checkers (CRC)', () => {
    const code = buildPixBrCode({
      key: 'fulano@example.com',
      amountCents: 1990,
      merchantName: 'Fulano',
      merchantCity: 'Recife',
      txid: 'T1',
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: code.length - 5 }),
        fc.constantFrom(...'0123456789ABCxyz'),
        (position, replacement) => {
          fc.pre(code[position] !== replacement);
          const tampered = code.slice(0, position) + replacement + code.slice(position + 1);
          assert.equal(isValidPixPayload(tampered), false);
          assert.ok(hasError(parsePix(tampered)));
          assert.throws(() => parsePixBrCode(tampered), RangeError);
        },
      ),
    );
  });

  test('pixTxid makes a valid dynamic txid from any seed', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        (seed) => /^[a-zA-Z0-9]{26,35}$/.test(pixTxid(seed)) && pixTxid(seed) === pixTxid(seed),
      ),
    );
  });
});

function withCpfCheckDigits(nineDigits: number[]): string {
  const checkDigit = (digits: number[]) => {
    const remainder = digits.reduce((sum, digit, index) => sum + digit * (digits.length + 1 - index), 0) % 11;
    return remainder < 2 ? 0 : 11 - remainder;
  };
  const first = checkDigit(nineDigits);
  return [...nineDigits, first, checkDigit([...nineDigits, first])].join('');
}
