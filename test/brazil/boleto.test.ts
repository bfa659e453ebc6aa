import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  bankCodeCheckDigit,
  barcodeToDigitableLine,
  boletoDueFactor,
  boletoFreeField,
  boletoMod10,
  boletoMod11,
  buildBoleto,
  digitableLineToBarcode,
  formatDigitableLine,
  readBoletoBarcode,
  type BoletoInput,
} from '../../src/brazil/boleto.ts';

const REFERENCE_LINE = '00190000090114971860168524522114675860000102656';
const REFERENCE_BARCODE = '00196758600001026560000001149718606852452211';
const REFERENCE_INPUT: BoletoInput = {
  bankCode: '001',
  dueDate: '2018-07-15',
  amountCents: 102656,
  freeField: boletoFreeField({ agreement: '1149718', ourNumber: '6068524522', carteira: '11' }),
};

describe('boleto: reference example', () => {
  test('builds the reference barcode and digitable line from bank, due date, amount and BB free field', () => {
    assert.deepEqual(buildBoleto(REFERENCE_INPUT), {
      barcode: REFERENCE_BARCODE,
      digitableLine: REFERENCE_LINE,
      dueFactor: 7586,
    });
  });

  test('digitable line → barcode', () => {
    assert.equal(digitableLineToBarcode(REFERENCE_LINE), REFERENCE_BARCODE);
    assert.equal(digitableLineToBarcode('00190.00009 01149.718601 68524.522114 6 75860000102656'), REFERENCE_BARCODE);
  });

  test('barcode → digitable line', () => {
    assert.equal(barcodeToDigitableLine(REFERENCE_BARCODE), REFERENCE_LINE);
  });

  test('formats the line in the usual grouping', () => {
    assert.equal(formatDigitableLine(REFERENCE_LINE), '00190.00009 01149.718601 68524.522114 6 75860000102656');
  });

  test('reads the barcode fields back', () => {
    assert.deepEqual(readBoletoBarcode(REFERENCE_BARCODE), {
      bankCode: '001',
      dueFactor: 7586,
      amountCents: 102656,
      freeField: '0000001149718606852452211',
    });
  });
});

describe('boleto check digits', () => {
  test('mod 10 of the reference fields', () => {
    assert.equal(boletoMod10('001900000'), 9);
    assert.equal(boletoMod10('0114971860'), 1);
    assert.equal(boletoMod10('6852452211'), 4);
  });

  test('mod 11 maps remainders 0 and 1 (DV 11 and 10) to 1', () => {
    assert.equal(boletoMod11(REFERENCE_BARCODE.slice(0, 4) + REFERENCE_BARCODE.slice(5)), 6);
    // Weights from the right are 2,3,…: "0" sums to 0 (DV 11 → 1) and "6" to 12 ≡ 1 (DV 10 → 1).
    assert.equal(boletoMod11('0'), 1);
    assert.equal(boletoMod11('6'), 1);
    assert.equal(boletoMod11('1'), 9);
  });

  test('bank code check digits as printed on boletos', () => {
    assert.deepEqual(
      ['001', '033', '104', '237', '341'].map((code) => `${code}-${bankCodeCheckDigit(code)}`),
      ['001-9', '033-7', '104-0', '237-2', '341-7'],
    );
  });
});

describe('boleto due-date factor', () => {
  const cases: Array<[string, number]> = [
    ['1997-10-08', 1],
    ['2000-07-03', 1000],
    ['2018-07-15', 7586],
    ['2025-02-21', 9999],
    ['2025-02-22', 1000],
    ['2025-02-23', 1001],
    ['2026-06-30', 1493],
    ['2028-02-29', 2102],
    ['2030-01-01', 2774],
    ['2049-10-13', 9999],
  ];
  for (const [date, factor] of cases) {
    test(`${date} → ${factor}`, () => assert.equal(boletoDueFactor(date), factor));
  }

  test('dates outside the two published cycles throw', () => {
    assert.throws(() => boletoDueFactor('1997-10-07'), /start on 1997-10-08/);
    assert.throws(() => boletoDueFactor('2049-10-14'), /after 2049-10-13/);
  });

  test('malformed or impossible dates throw', () => {
    for (const date of ['2025-02-30', '2025-2-3', '03/02/2025', '2025-13-01', '0099-01-01', '']) {
      assert.throws(() => boletoDueFactor(date), RangeError, date);
    }
  });

  test('buildBoleto writes factors below 1000 with leading zeros', () => {
    assert.equal(buildBoleto({ ...REFERENCE_INPUT, dueDate: '1997-10-20' }).barcode.slice(5, 9), '0013');
  });
});

describe('Banco do Brasil free field (7-digit agreement)', () => {
  test('6 zeros + agreement + our number padded to 10 + carteira', () => {
    assert.equal(
      boletoFreeField({ agreement: '1234567', ourNumber: '89', carteira: '17' }),
      '0000001234567000000008917',
    );
  });

  test('rejects fields of the wrong size', () => {
    assert.throws(() => boletoFreeField({ agreement: '123456', ourNumber: '1', carteira: '17' }), /agreement/);
    assert.throws(
      () => boletoFreeField({ agreement: '1234567', ourNumber: '12345678901', carteira: '17' }),
      /ourNumber/,
    );
    assert.throws(() => boletoFreeField({ agreement: '1234567', ourNumber: '', carteira: '17' }), /ourNumber/);
    assert.throws(() => boletoFreeField({ agreement: '1234567', ourNumber: '1', carteira: '7' }), /carteira/);
  });
});

describe('boleto: invalid inputs throw RangeError', () => {
  const cases: Array<[string, Partial<BoletoInput>, RegExp]> = [
    ['bank code of 2 digits', { bankCode: '01' }, /bankCode/],
    ['bank code with letters', { bankCode: 'BB1' }, /bankCode/],
    ['free field of 24 digits', { freeField: '0'.repeat(24) }, /freeField/],
    ['free field with a letter', { freeField: `${'0'.repeat(24)}A` }, /freeField/],
    ['negative amount', { amountCents: -1 }, /amountCents/],
    ['fractional cents', { amountCents: 0.5 }, /amountCents/],
    ['amount above 10 digits of cents', { amountCents: 10_000_000_000 }, /10 digits of cents/],
    ['impossible due date', { dueDate: '2026-02-29' }, /calendar date/],
  ];
  for (const [name, change, message] of cases) {
    test(name, () => {
      assert.throws(
        () => buildBoleto({ ...REFERENCE_INPUT, ...change }),
        (error: unknown) => error instanceof RangeError && message.test(error.message),
      );
    });
  }

  test('the largest amount and a zero amount build', () => {
    assert.equal(buildBoleto({ ...REFERENCE_INPUT, amountCents: 9_999_999_999 }).barcode.slice(9, 19), '9999999999');
    assert.equal(buildBoleto({ ...REFERENCE_INPUT, amountCents: 0 }).barcode.slice(9, 19), '0000000000');
  });

  test('digitable lines with a wrong check digit, length or character', () => {
    const replaceAt = (text: string, index: number, digit: string) =>
      text.slice(0, index) + digit + text.slice(index + 1);
    assert.throws(() => digitableLineToBarcode(replaceAt(REFERENCE_LINE, 9, '0')), /field 1/);
    assert.throws(() => digitableLineToBarcode(replaceAt(REFERENCE_LINE, 20, '0')), /field 2/);
    assert.throws(() => digitableLineToBarcode(replaceAt(REFERENCE_LINE, 31, '0')), /field 3/);
    assert.throws(() => digitableLineToBarcode(replaceAt(REFERENCE_LINE, 32, '7')), /general check digit/);
    assert.throws(() => digitableLineToBarcode(REFERENCE_LINE.slice(1)), /47 digits/);
    assert.throws(() => digitableLineToBarcode(`${REFERENCE_LINE.slice(0, 46)}x`), /47 digits/);
    assert.throws(() => formatDigitableLine(replaceAt(REFERENCE_LINE, 9, '0')), /field 1/);
  });

  test('barcodes with a wrong check digit, currency or length', () => {
    assert.throws(
      () => barcodeToDigitableLine(`${REFERENCE_BARCODE.slice(0, 4)}7${REFERENCE_BARCODE.slice(5)}`),
      /general check digit/,
    );
    assert.throws(() => barcodeToDigitableLine(`0010${REFERENCE_BARCODE.slice(4)}`), /currency code must be 9/);
    assert.throws(() => barcodeToDigitableLine(REFERENCE_BARCODE.slice(1)), /44 digits/);
  });
});
