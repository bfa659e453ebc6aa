/** CPF and CNPJ check digits (Receita Federal), including the alphanumeric CNPJ in force since July 2026. */

const CNPJ_WEIGHTS_1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

function checkDigit(values: number[], weights: number[]): number {
  const sum = values.reduce((total, value, i) => total + value * weights[i]!, 0);
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

export function isValidCpf(input: string): boolean {
  if (!/^[0-9]{11}$/.test(input) || /^(\d)\1{10}$/.test(input)) return false;
  const digits = [...input].map(Number);
  const first = checkDigit(digits.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(digits.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return first === digits[9] && second === digits[10];
}

/** Positions 1–12 may be letters (value = ASCII code − 48); the two check digits are numeric. */
export function isValidCnpj(input: string): boolean {
  const value = input.toUpperCase();
  if (!/^[0-9A-Z]{12}[0-9]{2}$/.test(value) || /^(\d)\1{13}$/.test(value)) return false;
  const values = [...value].map((char) => char.charCodeAt(0) - 48);
  const first = checkDigit(values.slice(0, 12), CNPJ_WEIGHTS_1);
  const second = checkDigit(values.slice(0, 13), CNPJ_WEIGHTS_2);
  return first === values[12] && second === values[13];
}

/** A CPF (11 digits) or a CNPJ (14 characters), with valid check digits. */
export function isValidTaxId(input: string): boolean {
  return input.length === 11 ? isValidCpf(input) : input.length === 14 ? isValidCnpj(input) : false;
}
