import assert from 'node:assert/strict';
import { constants, generateKeyPairSync, publicEncrypt } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  CardHashKeys,
  cardHashPlaintext,
  decryptPkcs1v15,
  encryptCardHash,
  parseCardHashPlaintext,
} from '../../src/gateways/gateway-c/card-hash.ts';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

describe('card hash (gateway_c)', { timeout: 30_000 }, () => {
  test('the plaintext is the URL-encoded query string with digits-only number, MMYY expiry and CVV', () => {
    const text = cardHashPlaintext({
      number: '4111 1111-1111 1111',
      holderName: 'José da Silva',
      expMonth: 3,
      expYear: 2031,
      cvv: ' 123 ',
    });
    assert.equal(
      text,
      'card_number=4111111111111111&card_holder_name=Jos%C3%A9%20da%20Silva&card_expiration_date=0331&card_cvv=123',
    );
    assert.deepEqual(parseCardHashPlaintext(text), {
      number: '4111111111111111',
      holderName: 'José da Silva',
      expMonth: 3,
      expYear: 2031,
      cvv: '123',
    });
    assert.equal(
      parseCardHashPlaintext('card_number=41&card_holder_name=x&card_expiration_date=0331&card_cvv=123'),
      undefined,
    );
    assert.equal(
      parseCardHashPlaintext('card_number=4111111111111111&card_expiration_date=0331&card_cvv=123'),
      undefined,
    );
  });

  test('round trip: what node:crypto publicEncrypt encrypts with PKCS#1 v1.5 decrypts to exactly the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 245 }), (bytes) => {
        const message = Buffer.from(bytes);
        const ciphertext = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, message);
        assert.deepEqual(decryptPkcs1v15(privateKey, ciphertext), message);
      }),
      { numRuns: 60 },
    );
  });

  test('a changed ciphertext or another key does not decrypt to the message', () => {
    const message = Buffer.from(
      'card_number=4111111111111111&card_holder_name=A&card_expiration_date=1230&card_cvv=123',
    );
    const ciphertext = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, message);
    const changed = Buffer.from(ciphertext);
    changed[10] = changed[10]! ^ 0xff;
    assert.throws(() => decryptPkcs1v15(privateKey, changed));
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    assert.throws(() => decryptPkcs1v15(other, ciphertext));
    assert.throws(() => decryptPkcs1v15(privateKey, ciphertext.subarray(1)));
  });

  test('a key opens one hash within five minutes, then never again', async () => {
    const keys = new CardHashKeys();
    const created = new Date('2026-01-01T12:00:00Z');
    const key = await keys.create(created);
    const plaintext = cardHashPlaintext({
      number: '4111111111111111',
      holderName: 'Ana',
      expMonth: 1,
      expYear: 2030,
      cvv: '999',
    });
    const hash = encryptCardHash(key, plaintext);
    assert.match(hash, new RegExp(`^${key.id}_[A-Za-z0-9+/]+={0,2}$`));
    assert.deepEqual(keys.open(hash, new Date(created.getTime() + 299_000)), { plaintext });
    assert.deepEqual(keys.open(hash, new Date(created.getTime() + 299_000)), { refusal: 'used_key' });

    const late = await keys.create(created);
    assert.deepEqual(keys.open(encryptCardHash(late, plaintext), new Date(created.getTime() + 300_001)), {
      refusal: 'expired_key',
    });
    assert.deepEqual(keys.open('12_abc', created), { refusal: 'unknown_key' });
    assert.deepEqual(keys.open('abc', created), { refusal: 'malformed' });
    const spoiled = await keys.create(created);
    assert.deepEqual(keys.open(`${spoiled.id}_AAAA`, created), { refusal: 'undecryptable' });
  });

  test('a plaintext too long for one RSA block is refused before encryption', () => {
    assert.throws(
      () =>
        encryptCardHash(
          { id: 1, public_key: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
          'x'.repeat(246),
        ),
      RangeError,
    );
  });
});
