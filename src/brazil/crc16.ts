/** CRC-16/CCITT-FALSE, the checksum that closes every Pix BR Code (field 63). */

const POLYNOMIAL = 0x1021;
const INITIAL_VALUE = 0xffff;
const utf8 = new TextEncoder();

/** CRC over the UTF-8 bytes of `text`, as 4 upper-case hex digits (check: "123456789" → "29B1"). */
export function crc16CcittFalse(text: string): string {
  let crc = INITIAL_VALUE;
  for (const byte of utf8.encode(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      // No reflection and no final xor: that is what distinguishes the -FALSE variant.
      crc = crc & 0x8000 ? ((crc << 1) ^ POLYNOMIAL) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}
