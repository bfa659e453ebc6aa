/**
 * Pix BR Code (EMV QRCPS-MPM, BCB "Manual de Padrões para Iniciação do Pix"): the text behind a Pix
 * QR Code and "Pix copia e cola". Static codes carry the receiver's key; dynamic codes carry the
 * PSP location that serves the charge. Text normalisation is described in pix-text.ts.
 */

import { crc16CcittFalse } from './crc16.ts';
import { assertPixKey, PIX_GUI, toPixLocation } from './pix-keys.ts';
import { normaliseMerchantCity, normaliseMerchantName, toBrCodeText } from './pix-text.ts';
import { tlv } from './pix-tlv.ts';
import { isValidDynamicTxid, isValidStaticTxid, PIX_NO_TXID } from './pix-txid.ts';

export { parsePixBrCode } from './pix-parse.ts';
export { pixTxid } from './pix-txid.ts';
export { pixKeyType } from './pix-keys.ts';

export const MERCHANT_ACCOUNT_MAX_LENGTH = 99;
// Field 54 holds at most 13 characters: "9999999999.99".
export const PIX_MAX_AMOUNT_CENTS = 999_999_999_999;

export interface PixBrCodeInput {
  /** Static code: the receiver's Pix key. Exactly one of key and locationUrl. */
  key?: string;
  /** Dynamic code: the PSP location (with or without https://). */
  locationUrl?: string;
  /** Omit for an open amount (the payer types it). */
  amountCents?: number;
  merchantName: string;
  merchantCity: string;
  /** Static: 1–25 letters/digits or `***`. Dynamic: `***` or the cob's 26–35 character txid (the code then carries `***`). */
  txid: string;
  /** Static only: free text shown to the payer (field 26/02). */
  description?: string;
  /** CEP, 8 digits (a hyphen is accepted). */
  postalCode?: string;
}

/** Builds a static or dynamic BR Code with fields in the mandated order and the CRC last. */
export function buildPixBrCode(input: PixBrCodeInput): string {
  const isDynamic = checkKeyOrLocation(input);
  const fields = [
    tlv('00', '01'),
    // Point of initiation 12 marks a single-use (dynamic) code; static codes omit it, as the BCB example does.
    isDynamic ? tlv('01', '12') : '',
    tlv('26', merchantAccount(input, isDynamic)),
    tlv('52', '0000'),
    tlv('53', '986'),
    input.amountCents === undefined ? '' : tlv('54', formatPixAmount(input.amountCents)),
    tlv('58', 'BR'),
    tlv('59', normaliseMerchantName(input.merchantName)),
    tlv('60', normaliseMerchantCity(input.merchantCity)),
    input.postalCode === undefined ? '' : tlv('61', normalisePostalCode(input.postalCode)),
    tlv('62', tlv('05', payloadTxid(input.txid, isDynamic))),
  ];
  const withoutCrc = `${fields.join('')}6304`;
  return withoutCrc + crc16CcittFalse(withoutCrc);
}

/** True for a dynamic code; throws unless exactly one of key and locationUrl is given. */
function checkKeyOrLocation(input: PixBrCodeInput): boolean {
  const hasKey = input.key !== undefined;
  const hasLocation = input.locationUrl !== undefined;
  if (hasKey === hasLocation)
    throw new RangeError('a BR Code needs exactly one of key (static) or locationUrl (dynamic)');
  if (hasLocation && input.description !== undefined) {
    // Section 2.7 of the manual maps the dynamic template to GUI and URL only.
    throw new RangeError(
      'description is only allowed in a static BR Code; a dynamic one carries it in the location payload',
    );
  }
  return hasLocation;
}

function merchantAccount(input: PixBrCodeInput, isDynamic: boolean): string {
  let account = tlv('00', PIX_GUI);
  if (isDynamic) {
    account += tlv('25', toPixLocation(input.locationUrl!));
  } else {
    assertPixKey(input.key!);
    account += tlv('01', input.key!);
  }
  if (input.description !== undefined) {
    const description = toBrCodeText(input.description, 'description');
    if (description !== '') account += tlv('02', description);
  }
  if (account.length > MERCHANT_ACCOUNT_MAX_LENGTH) {
    throw new RangeError(
      `merchant account information (field 26) would be ${account.length} characters; the limit is ${MERCHANT_ACCOUNT_MAX_LENGTH}: shorten the description or the key`,
    );
  }
  return account;
}

function payloadTxid(txid: string, isDynamic: boolean): string {
  if (isDynamic) {
    if (txid !== PIX_NO_TXID && !isValidDynamicTxid(txid)) {
      throw new RangeError(`invalid dynamic txid ${JSON.stringify(txid)}: expected 26–35 letters and digits (or ***)`);
    }
    // The manual puts the cob's txid in the location payload; the code itself carries ***.
    return PIX_NO_TXID;
  }
  if (!isValidStaticTxid(txid)) {
    throw new RangeError(`invalid static txid ${JSON.stringify(txid)}: expected 1–25 letters and digits, or ***`);
  }
  return txid;
}

/** Cents as field 54 writes them: "10.00", "0.01". */
export function formatPixAmount(amountCents: number): string {
  if (!Number.isSafeInteger(amountCents) || amountCents < 1 || amountCents > PIX_MAX_AMOUNT_CENTS) {
    throw new RangeError(
      `amountCents must be an integer from 1 to ${PIX_MAX_AMOUNT_CENTS} (omit it for an open amount), got ${amountCents}`,
    );
  }
  return `${Math.floor(amountCents / 100)}.${String(amountCents % 100).padStart(2, '0')}`;
}

function normalisePostalCode(postalCode: string): string {
  if (!/^\d{5}-?\d{3}$/.test(postalCode))
    throw new RangeError(`postalCode must be a CEP of 8 digits, got ${JSON.stringify(postalCode)}`);
  return postalCode.replace('-', '');
}
