import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import * as brazilianUtils from '@brazilian-utils/brazilian-utils';
import fc from 'fast-check';
import { isValidCnpj, isValidCpf } from '../../src/brazil/documents.ts';
import { containsCardNumber, redactCardNumbers } from '../../src/lib/card-numbers.ts';
import { constantTimeEqual, seal, unseal } from '../../src/lib/crypto.ts';
import { redactUrl } from '../../src/lib/logger.ts';
import { passesLuhn } from '../../src/lib/luhn.ts';
import { toCents, toMajor } from '../../src/lib/money.ts';
import { hostIsAllowed, isValidAllowedHost } from '../../src/modules/accounts/allowed-hosts.ts';

describe('CPF and CNPJ agree with an independent validator', () => {
  test('documented examples', () => {
    assert.ok(isValidCpf('52998224725'));
    assert.ok(isValidCnpj('11222333000181'));
    assert.ok(isValidCnpj('12ABC34501DE35'));
    assert.ok(!isValidCpf('11111111111'));
    assert.ok(!isValidCnpj('11222333000182'));
  });
  test('generated documents and random digit strings', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Array.from({ length: 50 }, () => brazilianUtils.generateCpf())), (cpf) =>
        isValidCpf(cpf),
      ),
    );
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{11}$/),
        (digits) => isValidCpf(digits) === brazilianUtils.isValidCpf(digits),
      ),
    );
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{14}$/),
        (digits) => isValidCnpj(digits) === brazilianUtils.isValidCnpj(digits),
      ),
    );
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9A-Z]{12}[0-9]{2}$/),
        (value) => isValidCnpj(value) === brazilianUtils.isValidCnpj(value, { version: 2 } as never),
      ),
    );
  });
});

describe('card numbers', () => {
  test('Luhn on known test cards', () => {
    for (const pan of [
      '4111111111111111',
      '5555555555554444',
      '378282246310005',
      '6011111111111117',
      '3530111333300000',
    ])
      assert.ok(passesLuhn(pan), pan);
    assert.ok(!passesLuhn('4111111111111112'));
  });
  test('any valid PAN with a brand prefix is found, plain or grouped, and redacted', () => {
    const pan = fc
      .tuple(
        fc.integer({ min: 2, max: 6 }),
        fc.integer({ min: 11, max: 17 }).chain((n) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`))),
      )
      .map(([first, rest]) => {
        const body = `${first}${rest}`;
        for (let check = 0; check < 10; check++) if (passesLuhn(body + check)) return body + check;
        throw new Error('unreachable');
      })
      .filter((digits) => !(digits.length === 14 && isValidCnpj(digits)));
    fc.assert(
      fc.property(pan, (digits) => {
        const grouped = digits.replace(/(\d{4})(?=\d)/g, '$1 ');
        return (
          containsCardNumber({ nested: [`pay ${grouped} now`] }) && !redactCardNumbers(`x=${digits}`).includes(digits)
        );
      }),
    );
  });
  test('digits inside an alphanumeric word (a gateway token) are not a card number', () => {
    assert.ok(
      !containsCardNumber({ token: 'tok_4111111111111111', hash: 'aB4111111111111111cD', id: '4111111111111111x' }),
    );
    assert.ok(containsCardNumber('card_number=4111111111111111&cvv=123'));
    assert.ok(containsCardNumber('(4111-1111-1111-1111)'));
  });

  test('digit runs that are not cards pass', () => {
    assert.ok(
      !containsCardNumber({ ts: 1732170000000, cnpj: '11222333000181', phone: '11987654321', bad: '4111111111111112' }),
    );
    assert.ok(!containsCardNumber('00190000090114971860168524522114675860000102656'));
  });
});

describe('allowed hosts', () => {
  test('exact, wildcard, port and case rules', () => {
    const allowed = ['shop.example.com', '*.brand.example', 'localhost:5173'];
    const origin = (hostname: string, port = '443') => ({ hostname, port });
    assert.ok(hostIsAllowed(origin('shop.example.com'), allowed));
    assert.ok(hostIsAllowed(origin('Shop.Example.COM'), allowed));
    assert.ok(hostIsAllowed(origin('a.b.brand.example'), allowed));
    assert.ok(!hostIsAllowed(origin('brand.example'), allowed));
    assert.ok(!hostIsAllowed(origin('xbrand.example'), allowed));
    assert.ok(hostIsAllowed(origin('localhost', '5173'), allowed));
    assert.ok(!hostIsAllowed(origin('localhost', '5174'), allowed));
    assert.ok(!hostIsAllowed(origin('shop.example.com.evil.io'), allowed));
  });
  test('entry syntax', () => {
    for (const entry of ['shop.example.com', '*.example.com', 'localhost:5173', '127.0.0.1'])
      assert.ok(isValidAllowedHost(entry), entry);
    for (const entry of ['https://shop.example.com', 'shop.example.com/path', '*', '*.', 'a b.com'])
      assert.ok(!isValidAllowedHost(entry), entry);
  });
});

describe('secrets', () => {
  test('sealing round-trips, is randomised, and refuses tampering or a wrong key', () => {
    const key = randomBytes(32);
    const sealed = seal(key, 'whsec_secret');
    assert.equal(unseal(key, sealed), 'whsec_secret');
    assert.notEqual(seal(key, 'whsec_secret'), sealed);
    assert.ok(!sealed.includes('whsec_secret'));
    assert.throws(() => unseal(randomBytes(32), sealed));
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    assert.throws(() => unseal(key, parts.join('.')));
  });
  test('constant-time comparison', () => {
    assert.ok(constantTimeEqual('abc', 'abc'));
    assert.ok(!constantTimeEqual('abc', 'abd'));
    assert.ok(!constantTimeEqual('abc', 'abcd'));
  });
  test('sensitive query parameters and card numbers are masked in logged URLs', () => {
    assert.equal(redactUrl('/a?token=xyz&page=2&api_key=k'), '/a?token=[Redacted]&page=2&api_key=[Redacted]');
    assert.equal(redactUrl('/a?q=4111111111111111'), '/a?q=[Redacted]');
  });
});

describe('money at the edge', () => {
  test('major units and cents convert exactly for two decimals', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 9_999_999_999 }), (cents) => toCents(toMajor(cents)) === cents));
    assert.equal(toCents(0.1 + 0.2), 30);
    assert.throws(() => toCents(1.001));
    assert.throws(() => toCents(Number.NaN));
  });
});
