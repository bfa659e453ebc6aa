/** Reads QR codes and boleto barcodes (ITF, 44 digits) from PNG screenshots with ZXing, an independent reader. */

import { createRequire } from 'node:module';
import type * as Zxing from '@zxing/library';
import { PNG } from 'pngjs';

// The package is CommonJS without named exports Node can detect: required as a whole.
const zxing = createRequire(import.meta.url)('@zxing/library') as typeof Zxing;
const { BinaryBitmap, DecodeHintType, HybridBinarizer, ITFReader, QRCodeReader, RGBLuminanceSource } = zxing;
type DecodeHintType = Zxing.DecodeHintType;

function bitmapOf(png: Buffer): Zxing.BinaryBitmap {
  const image = PNG.sync.read(png);
  const luminances = new Uint8ClampedArray(image.width * image.height);
  for (let pixel = 0; pixel < luminances.length; pixel++) {
    const [r, g, b, a] = image.data.subarray(pixel * 4, pixel * 4 + 4);
    // Transparent pixels are read as the white page behind them.
    const alpha = a! / 255;
    luminances[pixel] = Math.round(((r! * 299 + g! * 587 + b! * 114) / 1000) * alpha + 255 * (1 - alpha));
  }
  return new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(luminances, image.width, image.height)));
}

const HINTS = (extra: [DecodeHintType, unknown][] = []) =>
  new Map<DecodeHintType, unknown>([[DecodeHintType.TRY_HARDER, true], ...extra]);

export function readQrCode(png: Buffer): string {
  return new QRCodeReader().decode(bitmapOf(png), HINTS()).getText();
}

/** A boleto's barcode: interleaved 2 of 5 with its 44 digits. */
export function readBoletoBarcode(png: Buffer): string {
  return new ITFReader().decode(bitmapOf(png), HINTS([[DecodeHintType.ALLOWED_LENGTHS, [44]]])).getText();
}
