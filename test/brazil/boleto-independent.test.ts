/** Property tests: every boleto we generate is accepted and read back by @brazilian-utils/brazilian-utils. */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getBoletoInfo, isValidBoleto, parseBoleto } from '@brazilian-utils/brazilian-utils';
import fc from 'fast-check';
import { buildBoleto, digitableLineToBarcode, formatDigitableLine } from '../../src/brazil/boleto.ts';

const DAY_MS = 86_400_000;
// From factor 1000 of the first cycle (2000-07-03) to factor 9999 of the second (2049-10-13).
const dueDate = fc
  .integer({ min: Date.UTC(2000, 6, 3) / DAY_MS, max: Date.UTC(2049, 9, 13) / DAY_MS })
  .map((day) => new Date(day * DAY_MS).toISOString().slice(0, 10));
const boletoInput = fc.record({
  bankCode: fc.stringMatching(/^\d{3}$/),
  dueDate,
  amountCents: fc.integer({ min: 0, max: 9_999_999_999 }),
  freeField: fc.stringMatching(/^\d{25}$/),
});

/** The library reads the factor with local-time Dates, so compare and refer in local time too. */
function localDate(isoDate: string): Date {
  const [year, month, day] = isoDate.split('-').map(Number);
  return new Date(year!, month! - 1, day);
}

function localIsoDate(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/** Barcode positions of the digitable line fields, written from the FEBRABAN layout rather than taken from our code. */
function barcodeFromLine(line: string): string {
  return line.slice(0, 4) + line[32] + line.slice(33, 47) + line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31);
}

describe('generated boletos agree with @brazilian-utils/brazilian-utils', () => {
  test('the digitable line (plain and formatted) is valid and reads back amount, bank and due date', () => {
    fc.assert(
      fc.property(boletoInput, (input) => {
        const { digitableLine } = buildBoleto(input);
        assert.ok(isValidBoleto(digitableLine), `rejected ${digitableLine}`);
        assert.ok(isValidBoleto(formatDigitableLine(digitableLine)));
        assert.equal(parseBoleto(formatDigitableLine(digitableLine)), digitableLine);
        const info = getBoletoInfo(digitableLine, { referenceDate: localDate(input.dueDate) });
        assert.ok(info !== null);
        assert.equal(info.amount, input.amountCents);
        assert.equal(info.bankCode, input.bankCode);
        assert.ok(info.expirationDate !== null);
        assert.equal(localIsoDate(info.expirationDate), input.dueDate);
      }),
      { numRuns: 500 },
    );
  });

  test('the barcode is the one the validated line describes, and both convert into each other', () => {
    // The library validates 44-digit barcodes only for arrecadação slips, so the bank barcode is checked
    // through the line it validated: same digits in the FEBRABAN positions, same general check digit.
    fc.assert(
      fc.property(boletoInput, (input) => {
        const { barcode, digitableLine } = buildBoleto(input);
        assert.ok(isValidBoleto(digitableLine));
        assert.equal(barcode, barcodeFromLine(digitableLine));
        assert.equal(digitableLineToBarcode(digitableLine), barcode);
        assert.equal(barcode.slice(9, 19), String(input.amountCents).padStart(10, '0'));
        assert.equal(barcode.slice(19), input.freeField);
      }),
      { numRuns: 300 },
    );
  });

  test('after any single-digit change, we accept the line exactly when the library does', () => {
    const mutation = fc.record({
      input: boletoInput,
      position: fc.integer({ min: 0, max: 46 }),
      digit: fc.integer({ min: 0, max: 9 }),
    });
    let rejected = 0;
    fc.assert(
      fc.property(mutation, ({ input, position, digit }) => {
        const { digitableLine } = buildBoleto(input);
        fc.pre(digitableLine[position] !== String(digit));
        const changed = digitableLine.slice(0, position) + digit + digitableLine.slice(position + 1);
        let weAccept = true;
        try {
          digitableLineToBarcode(changed);
        } catch (error) {
          assert.ok(error instanceof RangeError);
          weAccept = false;
        }
        if (!weAccept) rejected++;
        assert.equal(weAccept, isValidBoleto(changed), changed);
        // Mod 10 catches every single-digit change in fields 1–3.
        if (position < 32) assert.equal(weAccept, false);
      }),
      { numRuns: 500 },
    );
    assert.ok(rejected > 400, `most changes are caught (${rejected})`);
  });
});
