/** Reads back a BR Code built by pix.ts (and other well-formed Pix BR Codes), checking its CRC. */

import { crc16CcittFalse } from './crc16.ts';
import { PIX_GUI } from './pix-keys.ts';
import { parseTlv, type TlvField } from './pix-tlv.ts';

export interface ParsedPixBrCode {
  pointOfInitiation: 'static' | 'dynamic';
  key?: string;
  /** Without https://, as the code carries it. */
  locationUrl?: string;
  amountCents?: number;
  merchantName: string;
  merchantCity: string;
  postalCode?: string;
  txid: string;
  description?: string;
}

/** Parses a BR Code; throws RangeError on a malformed structure, a wrong CRC or a missing Pix template. */
export function parsePixBrCode(code: string): ParsedPixBrCode {
  const fields = parseTlv(code);
  const crcField = fields.at(-1);
  if (fields[0]?.id !== '00' || fields[0].value !== '01') throw new RangeError('a BR Code starts with field 00 = 01');
  if (crcField?.id !== '63' || crcField.value.length !== 4)
    throw new RangeError('a BR Code ends with field 63, 4 characters');
  const expectedCrc = crc16CcittFalse(code.slice(0, -4));
  if (crcField.value.toUpperCase() !== expectedCrc)
    throw new RangeError(`wrong CRC: the code says ${crcField.value}, the content gives ${expectedCrc}`);

  const account = pixMerchantAccount(fields);
  const key = account.get('01');
  const locationUrl = account.get('25');
  if ((key === undefined) === (locationUrl === undefined))
    throw new RangeError('the Pix template needs exactly one of a key (01) or a location (25)');
  const pointOfInitiation = locationUrl !== undefined || valueOf(fields, '01') === '12' ? 'dynamic' : 'static';
  const txid = new Map(parseTlv(valueOf(fields, '62') ?? '').map((field) => [field.id, field.value])).get('05');

  const parsed: ParsedPixBrCode = {
    pointOfInitiation,
    merchantName: required(fields, '59'),
    merchantCity: required(fields, '60'),
    txid: txid ?? '***',
  };
  if (key !== undefined) parsed.key = key;
  if (locationUrl !== undefined) parsed.locationUrl = locationUrl;
  const amount = valueOf(fields, '54');
  if (amount !== undefined) parsed.amountCents = parseAmountCents(amount);
  const postalCode = valueOf(fields, '61');
  if (postalCode !== undefined) parsed.postalCode = postalCode;
  const description = account.get('02');
  if (description !== undefined) parsed.description = description;
  return parsed;
}

/** Sub-fields of the first merchant account template (26–51) whose GUI is br.gov.bcb.pix. */
function pixMerchantAccount(fields: TlvField[]): Map<string, string> {
  for (const field of fields) {
    const id = Number(field.id);
    if (id < 26 || id > 51) continue;
    const account = new Map(parseTlv(field.value).map((sub) => [sub.id, sub.value]));
    if (account.get('00')?.toLowerCase() === PIX_GUI) return account;
  }
  throw new RangeError('no merchant account template with GUI br.gov.bcb.pix');
}

function valueOf(fields: TlvField[], id: string): string | undefined {
  return fields.find((field) => field.id === id)?.value;
}

function required(fields: TlvField[], id: string): string {
  const value = valueOf(fields, id);
  if (value === undefined) throw new RangeError(`mandatory field ${id} is missing`);
  return value;
}

// Whole cents by string arithmetic, so "0.29" never turns into 28.999… cents.
function parseAmountCents(amount: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
  if (!match) throw new RangeError(`malformed amount (field 54): ${JSON.stringify(amount)}`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
