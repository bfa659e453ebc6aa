/**
 * The one free-field layout we issue: Banco do Brasil, agreement ("convênio") of 7 digits.
 * Free field (barcode positions 20–44) = 000000 + agreement(7) + our-number sequence(10) + carteira(2);
 * BB's full "nosso número" is agreement + sequence (17 digits).
 */

export interface BancoDoBrasilFreeFieldInput {
  /** Convênio, exactly 7 digits. */
  agreement: string;
  /** Our sequence for this boleto, 1–10 digits (left-padded with zeros). */
  ourNumber: string;
  /** Carteira (portfolio), 2 digits, e.g. "17" or "18". */
  carteira: string;
}

export function boletoFreeField({ agreement, ourNumber, carteira }: BancoDoBrasilFreeFieldInput): string {
  if (!/^\d{7}$/.test(agreement)) throw new RangeError(`agreement must be 7 digits, got ${JSON.stringify(agreement)}`);
  if (!/^\d{1,10}$/.test(ourNumber))
    throw new RangeError(`ourNumber must be 1–10 digits, got ${JSON.stringify(ourNumber)}`);
  if (!/^\d{2}$/.test(carteira)) throw new RangeError(`carteira must be 2 digits, got ${JSON.stringify(carteira)}`);
  return `000000${agreement}${ourNumber.padStart(10, '0')}${carteira}`;
}

/**
 * The bank fields a printed boleto shows, read back from a barcode of the layout above (Banco do Brasil,
 * 7-digit agreement); undefined for any other bank or layout.
 */
export function readBancoDoBrasilFreeField(
  barcode: string,
): { agreement: string; ourNumber: string; carteira: string } | undefined {
  if (!/^\d{44}$/.test(barcode) || !barcode.startsWith('001')) return undefined;
  const freeField = barcode.slice(19);
  if (!freeField.startsWith('000000')) return undefined;
  return { agreement: freeField.slice(6, 13), ourNumber: freeField.slice(6, 23), carteira: freeField.slice(23, 25) };
}
