/**
 * Reads QR codes and boleto barcodes (ITF, 44 digits) from PNG screenshots with independent readers: ZXing, and jsQR
 * for the QR codes ZXing's detector misses (about one valid symbol in twenty, whatever its size on the screen).
 */

import { createRequire } from 'node:module';
import type * as Zxing from '@zxing/library';
import type jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// The package is CommonJS without named exports Node can detect: required as a whole.
const zxing = createRequire(import.meta.url)('@zxing/library') as typeof Zxing;
const jsQR = createRequire(import.meta.url)('jsqr') as typeof jsQRModule.default;
const {
  BinaryBitmap,
  DecodeHintType,
  GlobalHistogramBinarizer,
  HybridBinarizer,
  ITFReader,
  QRCodeReader,
  RGBLuminanceSource,
} = zxing;
type DecodeHintType = Zxing.DecodeHintType;

/** The screenshot's luminance, optionally enlarged `scale` times by repeating pixels (no new information). */
function luminanceOf(png: Buffer, scale = 1): Zxing.RGBLuminanceSource {
  const image = PNG.sync.read(png);
  const luminances = new Uint8ClampedArray(image.width * image.height);
  for (let pixel = 0; pixel < luminances.length; pixel++) {
    const [r, g, b, a] = image.data.subarray(pixel * 4, pixel * 4 + 4);
    // Transparent pixels are read as the white page behind them.
    const alpha = a! / 255;
    luminances[pixel] = Math.round(((r! * 299 + g! * 587 + b! * 114) / 1000) * alpha + 255 * (1 - alpha));
  }
  if (scale === 1) return new RGBLuminanceSource(luminances, image.width, image.height);
  const width = image.width * scale;
  const enlarged = new Uint8ClampedArray(width * image.height * scale);
  for (let y = 0; y < image.height * scale; y++)
    for (let x = 0; x < width; x++)
      enlarged[y * width + x] = luminances[Math.floor(y / scale) * image.width + Math.floor(x / scale)]!;
  return new RGBLuminanceSource(enlarged, width, image.height * scale);
}

function bitmapOf(png: Buffer): Zxing.BinaryBitmap {
  return new BinaryBitmap(new HybridBinarizer(luminanceOf(png)));
}

const HINTS = (extra: [DecodeHintType, unknown][] = []) =>
  new Map<DecodeHintType, unknown>([[DecodeHintType.TRY_HARDER, true], ...extra]);

/**
 * A QR shown scaled by the browser has modules of uneven width (4 or 5 pixels); ZXing's version estimate can miss on
 * one binarisation and not on another, so the reader tries both binarisers, then the same pixels enlarged.
 */
export function readQrCode(png: Buffer): string {
  const attempts = [
    () => new BinaryBitmap(new HybridBinarizer(luminanceOf(png))),
    () => new BinaryBitmap(new GlobalHistogramBinarizer(luminanceOf(png))),
    () => new BinaryBitmap(new HybridBinarizer(luminanceOf(png, 2))),
    () => new BinaryBitmap(new GlobalHistogramBinarizer(luminanceOf(png, 2))),
  ];
  let lastError: unknown;
  for (const bitmap of attempts) {
    try {
      return new QRCodeReader().decode(bitmap(), HINTS()).getText();
    } catch (error) {
      lastError = error;
    }
  }
  const image = PNG.sync.read(png);
  const read = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
  if (read) return read.data;
  throw lastError;
}

/** A boleto's barcode: interleaved 2 of 5 with its 44 digits. */
export function readBoletoBarcode(png: Buffer): string {
  return new ITFReader().decode(bitmapOf(png), HINTS([[DecodeHintType.ALLOWED_LENGTHS, [44]]])).getText();
}
