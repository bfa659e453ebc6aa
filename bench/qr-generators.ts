/**
 * The Pix QR code PNG as base64 (error correction M, 8 pixels per module, 4 modules of quiet zone), by our path
 * and by maintained generators used as they are; and a decoder to check that an image reads as its BR Code.
 */
import encodeQR from '@paulmillr/qr';
import decodeQR from '@paulmillr/qr/decode.js';
import { correction, generate } from 'lean-qr';
import { toPngBuffer, toPngDataURL } from 'lean-qr/extras/node_export';
import QRCode from 'qrcode';
import qrcodeGenerator from 'qrcode-generator';
import { buildPixBrCode, parsePixBrCode, pixTxid } from '../src/brazil/pix.ts';
import { pixQrPngBase64 } from '../src/brazil/render/index.ts';
import { qrSymbolPng } from '../src/brazil/render/qr-png.ts';
import { readPng } from '../test/brazil/support/png.ts';

const SCALE = 8;
const MARGIN = 4;
// lean-qr's default light colour is transparent; the other PNGs are black on white.
const PNG_OPTIONS = { pad: MARGIN, scale: SCALE, on: [0, 0, 0, 255], off: [255, 255, 255, 255] } as const;
const DATA_URL_PREFIX = 'data:image/png;base64,';

/** The code a Pix payment gets from the gateway sandboxes (src/gateways/sandbox/payment-slips.ts). */
export const TYPICAL_PIX_CODE = buildPixBrCode({
  locationUrl: `pix.sandbox.example/gateway_a/qr/${pixTxid('gateway_a:ch_5f3c9a1e7b2d4c6e8f0a1b2c')}`,
  merchantName: 'Loja Sandbox',
  merchantCity: 'SAO PAULO',
  txid: pixTxid('gateway_a:ch_5f3c9a1e7b2d4c6e8f0a1b2c'),
});

type Generator = { name: string; render(code: string): Promise<string> };

/** A matrix from a library without a PNG writer of its own, written by lean-qr's (which reads the padding too). */
const leanQrPng = (size: number, get: (x: number, y: number) => boolean) =>
  Buffer.from(
    toPngBuffer({ size, get: (x, y) => x >= 0 && y >= 0 && x < size && y < size && get(x, y) }, PNG_OPTIONS),
  ).toString('base64');

export const QR_GENERATORS: Generator[] = [
  { name: 'ours: qrcode create, our PNG writer', render: pixQrPngBase64 },
  {
    name: 'lean-qr generate, our PNG writer',
    async render(code) {
      parsePixBrCode(code);
      const symbol = generate(code, { minCorrectionLevel: correction.M, maxCorrectionLevel: correction.M });
      return qrSymbolPng({ size: symbol.size, get: (row, col) => symbol.get(col, row) }, SCALE, MARGIN).toString(
        'base64',
      );
    },
  },
  {
    name: 'qrcode toDataURL',
    async render(code) {
      parsePixBrCode(code);
      const url = await QRCode.toDataURL(code, { errorCorrectionLevel: 'M', margin: MARGIN, scale: SCALE });
      return url.slice(DATA_URL_PREFIX.length);
    },
  },
  {
    name: 'lean-qr toPngDataURL',
    async render(code) {
      parsePixBrCode(code);
      const symbol = generate(code, { minCorrectionLevel: correction.M, maxCorrectionLevel: correction.M });
      return toPngDataURL(symbol, PNG_OPTIONS).slice(DATA_URL_PREFIX.length);
    },
  },
  {
    name: '@paulmillr/qr matrix, lean-qr PNG',
    async render(code) {
      parsePixBrCode(code);
      const rows = encodeQR(code, 'raw', { ecc: 'medium', border: 0 });
      return leanQrPng(rows.length, (x, y) => rows[y]![x]!);
    },
  },
  {
    name: 'qrcode-generator matrix, lean-qr PNG',
    async render(code) {
      parsePixBrCode(code);
      const symbol = qrcodeGenerator(0, 'M');
      symbol.addData(code);
      symbol.make();
      return leanQrPng(symbol.getModuleCount(), (x, y) => symbol.isDark(y, x));
    },
  },
];

/** The text a PNG (base64) reads as: decoded by pngjs, then read by @paulmillr/qr's decoder. */
export function decodePngQr(base64: string): string {
  const { width, height, data } = readPng(Buffer.from(base64, 'base64'));
  return decodeQR({ width, height, data });
}
