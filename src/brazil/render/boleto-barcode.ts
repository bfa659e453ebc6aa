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

// Interleaved 2 of 5: each digit is five elements, two of them wide (W) and three narrow (N).
const ITF_DIGITS = ['NNWWN', 'WNNNW', 'NWNNW', 'WWNNN', 'NNWNW', 'WNWNN', 'NWWNN', 'NNNWW', 'WNNWN', 'NWNWN'];
/** Wide elements twice the narrow one (ITF allows 2 to 3): the 44 digits fit a 390 px screen at 1 px a module. */
const SCREEN_WIDE = 2;
/** ITF asks for a quiet zone of at least 10 narrow modules on each side. */
const SCREEN_QUIET = 10;
const SCREEN_HEIGHT = 64;

/** The bar and space widths, in narrow modules, of the 44 digits with the start and stop patterns. */
function itfWidths(barcode: string): number[] {
  const width = (element: string) => (element === 'W' ? SCREEN_WIDE : 1);
  const widths = [1, 1, 1, 1];
  for (let i = 0; i < barcode.length; i += 2) {
    const bars = ITF_DIGITS[Number(barcode[i])]!;
    const spaces = ITF_DIGITS[Number(barcode[i + 1])]!;
    for (let k = 0; k < 5; k++) widths.push(width(bars[k]!), width(spaces[k]!));
  }
  widths.push(SCREEN_WIDE, 1, 1);
  return widths;
}

/**
 * The barcode for a screen: an SVG of whole-pixel bars (1 px a narrow module, `crispEdges`) with its quiet
 * zone, meant to be shown at its own width so no bar is resampled; a phone at 2x or 3x draws each module on
 * 2 or 3 device pixels.
 */
export function boletoBarcodeScreenSvg(barcode: string): { svg: string; width: number; height: number } {
  assertBoletoBarcode(barcode);
  let x = SCREEN_QUIET;
  const bars: string[] = [];
  for (const [index, width] of itfWidths(barcode).entries()) {
    if (index % 2 === 0) bars.push(`<rect x="${x}" y="0" width="${width}" height="${SCREEN_HEIGHT}"/>`);
    x += width;
  }
  const width = x + SCREEN_QUIET;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${SCREEN_HEIGHT}" viewBox="0 0 ${width} ${SCREEN_HEIGHT}" shape-rendering="crispEdges"><rect width="${width}" height="${SCREEN_HEIGHT}" fill="#fff"/><g fill="#000">${bars.join('')}</g></svg>`;
  return { svg, width, height: SCREEN_HEIGHT };
}
