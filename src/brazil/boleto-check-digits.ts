/** Check digits of the boleto (FEBRABAN / BCB Carta-Circular 2.926). */

function digitsOf(digits: string): number[] {
  if (!/^\d+$/.test(digits)) throw new RangeError(`expected digits only, got ${JSON.stringify(digits)}`);
  return [...digits].map(Number);
}

/** Mod 10 of a digitable-line field: weights 2,1,2,1… from the right, summing the digits of each product. */
export function boletoMod10(digits: string): number {
  const sum = digitsOf(digits)
    .reverse()
    .reduce((total, digit, index) => {
      const product = digit * (index % 2 === 0 ? 2 : 1);
      return total + Math.floor(product / 10) + (product % 10);
    }, 0);
  return (10 - (sum % 10)) % 10;
}

function mod11Remainder(digits: string): number {
  const sum = digitsOf(digits)
    .reverse()
    .reduce((total, digit, index) => total + digit * (2 + (index % 8)), 0);
  return sum % 11;
}

/** General check digit (barcode position 5) over the other 43 digits: weights 2..9 from the right; 0, 10 and 11 become 1. */
export function boletoMod11(digits: string): number {
  const checkDigit = 11 - mod11Remainder(digits);
  return checkDigit === 10 || checkDigit === 11 ? 1 : checkDigit;
}

/** The digit printed after the bank code on a boleto ("001-9", "341-7"): weights 2..9 from the right, 10 and 11 become 0. */
export function bankCodeCheckDigit(bankCode: string): number {
  const checkDigit = 11 - mod11Remainder(bankCode);
  return checkDigit >= 10 ? 0 : checkDigit;
}
