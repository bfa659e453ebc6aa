/** Pix QR Code images for the checkout page and e-mails. */

import QRCode from 'qrcode';
import { parsePixBrCode } from '../pix.ts';
import { bestMasked } from './qr-mask.ts';
import { qrSymbolPng } from './qr-png.ts';
import { qrcodeSegments } from './qr-segments.ts';

// Error correction M is what bank apps are tuned for; 4 modules of quiet zone is the QR minimum.
const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;
/** Pixels per module of the PNG: a 520-pixel image for a typical dynamic BR Code. */
export const PIX_QR_PNG_SCALE = 8;

/**
 * The symbol's modules as `qrcode` would choose them: its segments found by `qr-segments.ts`, built under
 * mask 0, then the best mask picked by `qr-mask.ts`.
 */
export function pixQrModules(code: string): { size: number; get(row: number, col: number): number } {
  const segments = qrcodeSegments(code, QR_OPTIONS.errorCorrectionLevel);
  const symbol = QRCode.create(segments, { errorCorrectionLevel: QR_OPTIONS.errorCorrectionLevel, maskPattern: 0 });
  const { size } = symbol.modules;
  const { modules } = bestMasked(symbol.modules, 0, symbol.errorCorrectionLevel.bit);
  return { size, get: (row, col) => modules[row * size + col]! };
}

/**
 * PNG as base64, without the `data:image/png;base64,` prefix. Throws if `code` is not a valid BR Code.
 * `qrcode` encodes the data, our segmentation, mask selection and PNG writer (one bit per pixel) do the
 * rest: its own segment search, mask search and RGBA encoder took most of a Pix payment's CPU.
 */
export async function pixQrPngBase64(code: string): Promise<string> {
  parsePixBrCode(code);
  return qrSymbolPng(pixQrModules(code), PIX_QR_PNG_SCALE, QR_OPTIONS.margin).toString('base64');
}

/** SVG markup. Throws if `code` is not a valid BR Code. */
export async function pixQrSvg(code: string): Promise<string> {
  parsePixBrCode(code);
  return QRCode.toString(code, { ...QR_OPTIONS, type: 'svg' });
}
