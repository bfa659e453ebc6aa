/** Boleto barcode images: Interleaved 2 of 5 over the 44 digits, as FEBRABAN specifies. */

import bwipjs from 'bwip-js';
import { assertBoletoBarcode } from '../boleto.ts';

// FEBRABAN: 13 mm high; the general check digit is already in the 44 digits, so the library must not add one.
const BARCODE_OPTIONS = { bcid: 'interleaved2of5', height: 13, includecheck: false, includetext: false } as const;

export function boletoBarcodeSvg(barcode: string): string {
  assertBoletoBarcode(barcode);
  return bwipjs.toSVG({ ...BARCODE_OPTIONS, text: barcode });
}

/** PNG at 3 px per narrow bar, so it stays sharp when printed 103 mm wide. */
export async function boletoBarcodePng(barcode: string): Promise<Buffer> {
  assertBoletoBarcode(barcode);
  return bwipjs.toBuffer({ ...BARCODE_OPTIONS, text: barcode, scale: 3 });
}
