/** Checks on the receiver's Pix key and on a PSP location URL before they go into field 26. */

import { isValidCnpj, isValidCpf } from './documents.ts';

/** GUI of the Pix merchant account template (field 26/00). */
export const PIX_GUI = 'br.gov.bcb.pix';
export const PIX_KEY_MAX_LENGTH = 77;
export const PIX_LOCATION_MAX_LENGTH = 77;

const RANDOM_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PHONE_KEY = /^\+55\d{10,11}$/;
const EMAIL_KEY = /^[\x21-\x7e]+@[\x21-\x7e]+\.[\x21-\x7e]+$/;
// Host with at least one dot and an optional path; no port, query or fragment (what PSPs publish).
const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const LOCATION = new RegExp(
  `^${HOST_LABEL}(?:\\.${HOST_LABEL})+(?:/(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9._~!$&'()*+,;=:@-])*)*$`,
);

export type PixKeyType = 'cpf' | 'cnpj' | 'phone' | 'email' | 'random';

/** The kind of DICT key `key` is written as, or null when it is none of them. */
export function pixKeyType(key: string): PixKeyType | null {
  if (key.length > PIX_KEY_MAX_LENGTH) return null;
  if (RANDOM_KEY.test(key)) return 'random';
  if (PHONE_KEY.test(key)) return 'phone';
  if (/^\d{11}$/.test(key)) return isValidCpf(key) ? 'cpf' : null;
  if (/^[0-9A-Z]{12}\d{2}$/.test(key)) return isValidCnpj(key) ? 'cnpj' : null;
  if (EMAIL_KEY.test(key) && key.split('@').length === 2) return 'email';
  return null;
}

/** Throws unless `key` is a CPF or CNPJ (digits only, valid check digits), +55 phone, e-mail or random key. */
export function assertPixKey(key: string): void {
  if (pixKeyType(key) === null) {
    throw new RangeError(
      `invalid Pix key ${JSON.stringify(key)}: expected a CPF or CNPJ (digits only, valid check digits), ` +
        `a phone as +55 and 10–11 digits, an e-mail, or a random (EVP) key, at most ${PIX_KEY_MAX_LENGTH} characters`,
    );
  }
}

/** Location as field 26/25 wants it: without `https://`; throws for http or a malformed URL. */
export function toPixLocation(url: string): string {
  if (/^http:\/\//i.test(url)) throw new RangeError(`Pix location must be https, got ${JSON.stringify(url)}`);
  const location = url.replace(/^https:\/\//i, '');
  if (location.length > PIX_LOCATION_MAX_LENGTH || !LOCATION.test(location)) {
    throw new RangeError(
      `invalid Pix location ${JSON.stringify(url)}: expected host/path without query or port, at most ${PIX_LOCATION_MAX_LENGTH} characters after https://`,
    );
  }
  return location;
}
