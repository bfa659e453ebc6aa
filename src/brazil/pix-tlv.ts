/** EMV TLV encoding: 2-digit id, 2-digit length, value. */

export interface TlvField {
  id: string;
  value: string;
}

/** One TLV field; the value must already be printable ASCII, so characters equal bytes. */
export function tlv(id: string, value: string): string {
  if (value.length > 99)
    throw new RangeError(`BR Code field ${id} is ${value.length} characters long; the limit is 99`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/** Splits a TLV string into its fields, in order; throws when a length runs past the end. */
export function parseTlv(text: string): TlvField[] {
  const fields: TlvField[] = [];
  let position = 0;
  while (position < text.length) {
    const header = text.slice(position, position + 4);
    if (!/^\d{4}$/.test(header))
      throw new RangeError(`malformed TLV header at position ${position}: ${JSON.stringify(header)}`);
    const length = Number(header.slice(2));
    const value = text.slice(position + 4, position + 4 + length);
    if (value.length !== length)
      throw new RangeError(`TLV field ${header.slice(0, 2)} at position ${position} runs past the end`);
    fields.push({ id: header.slice(0, 2), value });
    position += 4 + length;
  }
  return fields;
}
