import { constants, crc32, deflateSync } from 'node:zlib';

/** The module matrix of a QR symbol, as `qrcode`'s `create()` gives it (`get` is truthy for a dark module). */
export type QrModules = { size: number; get(row: number, col: number): number | boolean };

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A QR symbol as a PNG of one bit per pixel (grayscale: dark modules black, the rest and the quiet zone
 * white), `scale` pixels a module and `margin` modules of quiet zone. A symbol has two colours, so this
 * is a few kilobytes of rows for zlib (run-length matching suits rows of long runs); a general RGBA
 * encoder spends tens of milliseconds per image.
 */
export function qrSymbolPng(modules: QrModules, scale: number, margin: number): Buffer {
  const width = (modules.size + 2 * margin) * scale;
  const stride = Math.ceil(width / 8) + 1; // the filter byte (0: none) leads each row
  const raw = Buffer.alloc(stride * width);
  const blank = Buffer.alloc(stride, 0xff);
  blank[0] = 0;
  for (let y = 0; y < width; y++) blank.copy(raw, y * stride);
  for (let row = 0; row < modules.size; row++) {
    const line = Buffer.from(blank);
    for (let col = 0; col < modules.size; col++) {
      if (!modules.get(row, col)) continue;
      for (let x = (col + margin) * scale; x < (col + margin + 1) * scale; x++) line[1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
    }
    for (let y = (row + margin) * scale; y < (row + margin + 1) * scale; y++) line.copy(raw, y * stride);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(width, 4);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, grayscale, deflate, adaptive filtering, no interlace
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9, strategy: constants.Z_RLE })), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
