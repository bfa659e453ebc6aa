import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isValidCnpj } from '../../src/brazil/documents.ts';
import { containsCardNumber, redactCardNumbers } from '../../src/lib/card-numbers.ts';
import { passesLuhn } from '../../src/lib/luhn.ts';
import { grouped, TEST_CARDS } from '../support/test-cards.ts';

/** Where a client puts text: a bare value, a sentence, a JSON body's nested field, a query string. */
const CONTEXTS: ReadonlyArray<(text: string) => unknown> = [
  (text) => text,
  (text) => `pedido ${text} ok`,
  (text) => ({ meta: { external_id: text } }),
  (text) => ({ items: [{ external_id: text, quantity: 1 }] }),
  (text) => `cart_id=${text}&products[1]=2`,
  (text) => `(${text})`,
];

const digitString = (length: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length, maxLength: length }).map((digits) => digits.join(''));
/** UUIDs whose groups are all digits, the shape that used to be read as a card: the hardest case. */
const allDigitUuid = fc
  .tuple(digitString(8), digitString(4), digitString(4), digitString(4), digitString(12))
  .map((groups) => groups.join('-'));

/** Luhn-valid numbers under a brand's prefix, in their brand's length and grouping. */
const BRAND_SHAPES = [
  { prefixes: ['4'], lengths: { 13: [4, 4, 5], 16: [4, 4, 4, 4], 19: [4, 4, 4, 4, 3] } },
  { prefixes: ['51', '52', '53', '54', '55', '2221', '2720'], lengths: { 16: [4, 4, 4, 4] } },
  { prefixes: ['34', '37'], lengths: { 15: [4, 6, 5] } },
  { prefixes: ['636368', '504175', '509000', '650031', '438935', '451416'], lengths: { 16: [4, 4, 4, 4] } },
  { prefixes: ['606282', '3841'], lengths: { 16: [4, 4, 4, 4], 19: [4, 4, 4, 4, 3] } },
  { prefixes: ['300', '305', '36', '38'], lengths: { 14: [4, 6, 4] } },
] as const;

const brandCard = fc.constantFrom(...BRAND_SHAPES).chain((shape) =>
  fc
    .tuple(
      fc.constantFrom(...shape.prefixes),
      fc.constantFrom(...(Object.entries(shape.lengths) as Array<[string, readonly number[]]>)),
    )
    .chain(([prefix, [length, groups]]) =>
      digitString(Number(length) - prefix.length - 1).map((middle) => {
        const body = `${prefix}${middle}`;
        for (let check = 0; check < 10; check++)
          if (passesLuhn(body + check)) return { pan: body + check, groups: [...groups] };
        throw new Error('unreachable');
      }),
    )
    .filter(({ pan }) => !(pan.length === 14 && isValidCnpj(pan))),
);

describe('our own ids are never card numbers', () => {
  test('a million random UUIDs: none is taken for a card number', () => {
    let refused: string | undefined;
    for (let i = 0; i < 1_000_000 && refused === undefined; i++) {
      const uuid = randomUUID();
      if (containsCardNumber(uuid)) refused = uuid;
    }
    assert.equal(refused, undefined, `${refused} was taken for a card number`);
  });

  test('the UUID that was refused, and UUIDs of digits only, in every place a client puts them', () => {
    const reported = '50589732-5864-4002-9a6b-16be86815ffe';
    for (const context of CONTEXTS) assert.ok(!containsCardNumber(context(reported)), String(context(reported)));
    assert.equal(
      redactCardNumbers(`/api/v1/payment_plans?cart_id=${reported}`),
      `/api/v1/payment_plans?cart_id=${reported}`,
    );
    fc.assert(
      fc.property(
        fc.oneof(allDigitUuid, fc.uuid({ version: 4 }), fc.uuid()),
        fc.boolean(),
        fc.constantFrom(...CONTEXTS),
        (uuid, upper, context) => !containsCardNumber(context(upper ? uuid.toUpperCase() : uuid)),
      ),
      { numRuns: 20_000 },
    );
  });

  test('ids the service issues with a prefix (API keys, events, deliveries) hold digits that are not a card', () => {
    const digits = fc.stringMatching(/^[0-9]{13,40}$/);
    fc.assert(
      fc.property(fc.constantFrom('ck_', 'evt_', 'dlv_', 'tok_', 'pay_'), digits, (prefix, tail) => {
        const id = `${prefix}${tail}`;
        return !containsCardNumber(id) && !containsCardNumber({ id, path: `/orders/${id}` });
      }),
    );
    assert.ok(!containsCardNumber(`ck_4111111111111111_${'a'.repeat(43)}`));
  });

  test('grouped digits count only in the groupings cards are written in', () => {
    for (const text of [
      '4111-11111111-1111', // 4-8-4
      '41111111-1111-1111', // 8-4-4
      '411-111-111-111-1111', // 3-3-3-3-4
      '4111 1111 1111', // 12 digits
      '+55 11 91234-5678',
      '2026-11-27 4111',
      '41 1111 1111 1111 11', // 2-4-4-4-2
    ])
      assert.ok(!containsCardNumber(text), text);
  });
});

describe('real card numbers are refused however they are written', () => {
  test('the published test cards of Visa, Mastercard, Amex, Elo, Hipercard and Diners', () => {
    for (const { brand, pan, groups } of TEST_CARDS) {
      assert.ok(passesLuhn(pan), `${brand} ${pan} is a valid test number`);
      assert.equal(
        pan.length,
        groups.reduce((a, b) => a + b),
      );
      for (const text of [pan, grouped(pan, groups, ' '), grouped(pan, groups, '-')])
        for (const context of CONTEXTS)
          assert.ok(containsCardNumber(context(text)), `${brand}: ${String(context(text))}`);
      assert.ok(!redactCardNumbers(`/orders?q=${grouped(pan, groups, ' ')}`).includes(pan.slice(0, 4)), brand);
    }
  });

  test('any Luhn-valid number of those brands, plain, spaced or dashed in its grouping, in any context', () => {
    fc.assert(
      fc.property(
        brandCard,
        fc.constantFrom('', ' ', '-'),
        fc.constantFrom(...CONTEXTS),
        (card, separator, context) => {
          const text = separator ? grouped(card.pan, card.groups, separator) : card.pan;
          return containsCardNumber(context(text)) && !redactCardNumbers(`x=${text}`).includes(card.pan.slice(-4));
        },
      ),
      { numRuns: 5_000 },
    );
  });

  test('a card next to a UUID is still found', () => {
    const uuid = '50589732-5864-4002-9a6b-16be86815ffe';
    assert.ok(containsCardNumber(`${uuid} 4111 1111 1111 1111`));
    assert.ok(containsCardNumber(`4111111111111111-${uuid}`));
    assert.equal(redactCardNumbers(`${uuid}/4111-1111-1111-1111`), `${uuid}/[Redacted]`);
  });
});
