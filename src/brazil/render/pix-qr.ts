/** Pix QR Code images for the checkout page and e-mails. */

import QRCode from 'qrcode';
import { parsePixBrCode } from '../pix.ts';
import { qrSymbolPng } from './qr-png.ts';

// Error correction M is what bank apps are tuned for; 4 modules of quiet zone is the QR minimum.
const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;
/** Pixels per module of the PNG: a 456-pixel image for a typical dynamic BR Code. */
const PIX_QR_PNG_SCALE = 8;

/** The symbol's modules, as `qrcode` chooses them (segments, version and mask). */
export function pixQrModules(code: string): QRCode.BitMatrix {
  return QRCode.create(code, { errorCorrectionLevel: QR_OPTIONS.errorCorrectionLevel }).modules;
}

/**
 * PNG as base64, without the `data:image/png;base64,` prefix. Throws if `code` is not a valid BR Code.
 * `qrcode` builds the symbol; the PNG is written one bit per pixel (`qr-png.ts`): `qrcode`'s own RGBA
 * encoder took most of a Pix payment's CPU (docs/benchmarks.md).
 */
export async function pixQrPngBase64(code: string): Promise<string> {
  return (await pixQrPng(code)).toString('base64');
}

/** The same PNG as bytes (the printed boleto híbrido embeds it). Throws if `code` is not a valid BR Code. */
export async function pixQrPng(code: string): Promise<Buffer> {
  parsePixBrCode(code);
  return qrSymbolPng(pixQrModules(code), PIX_QR_PNG_SCALE, QR_OPTIONS.margin);
}

/**
 * The QR code for a screen: a PNG of a whole number of pixels a module, as large as fits `maxPixels`, meant to
 * be shown at its own size (`size` CSS pixels, `image-rendering: pixelated`) so no module is resampled.
 */
export async function pixQrForScreen(code: string, maxPixels = 288): Promise<{ base64: string; size: number }> {
  parsePixBrCode(code);
  const modules = pixQrModules(code);
  const side = modules.size + 2 * QR_OPTIONS.margin;
  const scale = Math.max(1, Math.floor(maxPixels / side));
  return { base64: qrSymbolPng(modules, scale, QR_OPTIONS.margin).toString('base64'), size: side * scale };
}

/** SVG markup. Throws if `code` is not a valid BR Code. */
export async function pixQrSvg(code: string): Promise<string> {
  parsePixBrCode(code);
  return QRCode.toString(code, { ...QR_OPTIONS, type: 'svg' });
}
