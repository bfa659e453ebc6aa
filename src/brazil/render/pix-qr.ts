/** Pix QR Code images for the checkout page and e-mails. */

import QRCode from 'qrcode';
import { parsePixBrCode } from '../pix.ts';

// Error correction M is what bank apps are tuned for; 4 modules of quiet zone is the QR minimum.
const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;

/** PNG as base64, without the `data:image/png;base64,` prefix. Throws if `code` is not a valid BR Code. */
export async function pixQrPngBase64(code: string): Promise<string> {
  parsePixBrCode(code);
  const png = await QRCode.toBuffer(code, { ...QR_OPTIONS, type: 'png', scale: 8 });
  return png.toString('base64');
}

/** SVG markup. Throws if `code` is not a valid BR Code. */
export async function pixQrSvg(code: string): Promise<string> {
  parsePixBrCode(code);
  return QRCode.toString(code, { ...QR_OPTIONS, type: 'svg' });
}
