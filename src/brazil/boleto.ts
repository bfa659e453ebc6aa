/**
 * Boleto bancário (FEBRABAN, BCB Carta-Circular 2.926): the 44-digit barcode and the 47-digit
 * digitable line ("linha digitável"). Barcode layout: bank(3) currency(1) general DV(1)
 * due factor(4) amount in cents(10) free field(25, the bank's own layout).
 */

import { boletoMod10, boletoMod11 } from './boleto-check-digits.ts';
import { boletoDueFactor } from './boleto-due-factor.ts';

export { bankCodeCheckDigit, boletoMod10, boletoMod11 } from './boleto-check-digits.ts';
export { boletoDueFactor } from './boleto-due-factor.ts';
export { boletoFreeField } from './boleto-free-field.ts';

/** The currency code for the real; the only one this service issues or accepts. */
export const BOLETO_CURRENCY_REAL = '9';
/** Ten digits of cents: R$ 99.999.999,99. */
export const BOLETO_MAX_AMOUNT_CENTS = 9_999_999_999;

export interface BoletoInput {
  /** COMPE code, 3 digits (e.g. "001"). */
  bankCode: string;
  /** 'YYYY-MM-DD'. */
  dueDate: string;
  /** 0 leaves the amount to be filled in at payment. */
  amountCents: number;
  /** 25 digits in the bank's layout (see boletoFreeField). */
  freeField: string;
}

export interface Boleto {
  barcode: string;
  digitableLine: string;
  dueFactor: number;
}

export function buildBoleto(input: BoletoInput): Boleto {
  if (!/^\d{3}$/.test(input.bankCode))
    throw new RangeError(`bankCode must be 3 digits, got ${JSON.stringify(input.bankCode)}`);
  if (!/^\d{25}$/.test(input.freeField))
    throw new RangeError(`freeField must be 25 digits, got ${JSON.stringify(input.freeField)}`);
  if (
    !Number.isSafeInteger(input.amountCents) ||
    input.amountCents < 0 ||
    input.amountCents > BOLETO_MAX_AMOUNT_CENTS
  ) {
    throw new RangeError(
      `amountCents must be an integer from 0 to ${BOLETO_MAX_AMOUNT_CENTS} (10 digits of cents), got ${input.amountCents}`,
    );
  }
  const dueFactor = boletoDueFactor(input.dueDate);
  const head = input.bankCode + BOLETO_CURRENCY_REAL;
  const tail = String(dueFactor).padStart(4, '0') + String(input.amountCents).padStart(10, '0') + input.freeField;
  const barcode = head + boletoMod11(head + tail) + tail;
  return { barcode, digitableLine: barcodeToDigitableLine(barcode), dueFactor };
}

/** Throws unless `barcode` is 44 digits in reais with a correct general check digit. */
export function assertBoletoBarcode(barcode: string): void {
  if (!/^\d{44}$/.test(barcode)) throw new RangeError(`a boleto barcode is 44 digits, got ${JSON.stringify(barcode)}`);
  if (barcode[3] !== BOLETO_CURRENCY_REAL) throw new RangeError(`currency code must be 9 (real), got ${barcode[3]}`);
  const expected = boletoMod11(barcode.slice(0, 4) + barcode.slice(5));
  if (Number(barcode[4]) !== expected)
    throw new RangeError(`wrong general check digit: the barcode says ${barcode[4]}, the digits give ${expected}`);
}

export interface BoletoBarcodeFields {
  bankCode: string;
  dueFactor: number;
  amountCents: number;
  freeField: string;
}

/** The fields of a valid barcode (factor 0 means no due date). */
export function readBoletoBarcode(barcode: string): BoletoBarcodeFields {
  assertBoletoBarcode(barcode);
  return {
    bankCode: barcode.slice(0, 3),
    dueFactor: Number(barcode.slice(5, 9)),
    amountCents: Number(barcode.slice(9, 19)),
    freeField: barcode.slice(19),
  };
}

function withMod10(digits: string): string {
  return digits + boletoMod10(digits);
}

export function barcodeToDigitableLine(barcode: string): string {
  assertBoletoBarcode(barcode);
  const freeField = barcode.slice(19);
  return (
    withMod10(barcode.slice(0, 4) + freeField.slice(0, 5)) +
    withMod10(freeField.slice(5, 15)) +
    withMod10(freeField.slice(15, 25)) +
    barcode[4] +
    barcode.slice(5, 19)
  );
}

/** Accepts the line with or without the usual dots and spaces; throws on a wrong check digit. */
export function digitableLineToBarcode(line: string): string {
  const digits = line.replace(/[\s.]/g, '');
  if (!/^\d{47}$/.test(digits)) throw new RangeError(`a digitable line is 47 digits, got ${JSON.stringify(line)}`);
  const fields = [digits.slice(0, 10), digits.slice(10, 21), digits.slice(21, 32)];
  fields.forEach((field, index) => {
    const expected = boletoMod10(field.slice(0, -1));
    if (Number(field.at(-1)) !== expected)
      throw new RangeError(`wrong check digit in field ${index + 1} of the digitable line: expected ${expected}`);
  });
  const freeField = fields[0]!.slice(4, 9) + fields[1]!.slice(0, 10) + fields[2]!.slice(0, 10);
  const barcode = digits.slice(0, 4) + digits[32] + digits.slice(33) + freeField;
  assertBoletoBarcode(barcode);
  return barcode;
}

/** The usual printed grouping: "00190.00009 01149.718601 68524.522114 6 75860000102656". */
export function formatDigitableLine(line: string): string {
  // Validating first means a mistyped line is never printed as if it were payable.
  digitableLineToBarcode(line);
  const digits = line.replace(/[\s.]/g, '');
  return [
    `${digits.slice(0, 5)}.${digits.slice(5, 10)}`,
    `${digits.slice(10, 15)}.${digits.slice(15, 21)}`,
    `${digits.slice(21, 26)}.${digits.slice(26, 32)}`,
    digits[32],
    digits.slice(33),
  ].join(' ');
}
