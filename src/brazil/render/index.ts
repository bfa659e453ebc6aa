/** Images and documents for Pix and boleto payments. */

export { boletoBarcodePng, boletoBarcodeScreenSvg, boletoBarcodeSvg } from './boleto-barcode.ts';
export { boletoPdf, type BoletoPdfInput } from './boleto-pdf.ts';
export { pixQrForScreen, pixQrPngBase64, pixQrSvg } from './pix-qr.ts';
