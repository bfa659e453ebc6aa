/**
 * The Pix QR image: `qrcode` builds the symbol, `qr-png.ts` writes it one bit per pixel. On many BR Codes,
 * every pixel is its module or the quiet zone, the image is the one `qrcode` renders itself, and a QR
 * reader written by others reads it as its BR Code.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import decodeQR from '@paulmillr/qr/decode.js';
import fc from 'fast-check';
import QRCode from 'qrcode';
import { buildPixBrCode } from '../../src/brazil/pix.ts';
import { pixQrModules, pixQrPngBase64 } from '../../src/brazil/render/pix-qr.ts';
import { qrSymbolPng } from '../../src/brazil/render/qr-png.ts';
import { readPng } from './support/png.ts';

const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ]{0,30}$/);
const brCode = fc
  .record({
    location: fc.option(
      fc
        .tuple(fc.domain(), fc.stringMatching(/^[A-Za-z0-9]{4,40}$/))
        .map(([host, path]) => `${host}/qr/${path}`)
        .filter((url) => url.length <= 77),
      { nil: undefined },
    ),
    key: fc.oneof(
      fc.uuid(),
      fc.stringMatching(/^\+55[1-9]{2}9\d{8}$/),
      fc.stringMatching(/^[a-z0-9.]{1,20}@[a-z]{2,12}\.com\.br$/),
    ),
    amountCents: fc.option(fc.integer({ min: 1, max: 99_999_999_999 }), { nil: undefined }),
    merchantName: name,
    merchantCity: name,
    txid: fc.stringMatching(/^[A-Za-z0-9]{26,35}$/),
    postalCode: fc.option(fc.stringMatching(/^\d{8}$/), { nil: undefined }),
  })
  .map(({ location, key, txid, ...rest }) =>
    location
      ? buildPixBrCode({ ...rest, locationUrl: location, txid })
      : buildPixBrCode({ ...rest, key, txid: txid.slice(0, 25) }),
  );

describe('PNG: decoded by pngjs, every pixel is its module or the quiet zone', () => {
  const codes = fc.sample(brCode, { numRuns: 6, seed: 42 });

  test('at several scales and margins', () => {
    for (const code of codes) {
      const modules = pixQrModules(code);
      for (const [scale, margin] of [
        [1, 0],
        [3, 2],
        [5, 1],
        [8, 4],
      ] as const) {
        const { width, height, data } = readPng(qrSymbolPng(modules, scale, margin));
        assert.equal(width, (modules.size + 2 * margin) * scale);
        assert.equal(height, width);
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) {
            const [row, col] = [Math.floor(y / scale) - margin, Math.floor(x / scale) - margin];
            const dark =
              row >= 0 && col >= 0 && row < modules.size && col < modules.size && modules.get(row, col) === 1;
            if (data[(y * width + x) * 4] !== (dark ? 0 : 255))
              assert.fail(`scale ${scale} margin ${margin}: pixel ${x},${y}`);
          }
        }
      }
    }
  });

  test('the Pix image is the one qrcode renders', async () => {
    for (const code of codes) {
      const ours = readPng(Buffer.from(await pixQrPngBase64(code), 'base64'));
      const theirs = readPng(
        await QRCode.toBuffer(code, { errorCorrectionLevel: 'M', margin: 4, scale: 8, type: 'png' }),
      );
      assert.equal(ours.width, theirs.width);
      for (let pixel = 0; pixel < ours.width * ours.height; pixel++)
        if (ours.data[pixel * 4] !== theirs.data[pixel * 4]) assert.fail(`${code}: pixel ${pixel}`);
    }
  });

  test('a QR reader reads each image as its BR Code', async () => {
    for (const code of fc.sample(brCode, { numRuns: 12, seed: 7 })) {
      const { width, height, data } = readPng(Buffer.from(await pixQrPngBase64(code), 'base64'));
      assert.equal(decodeQR({ width, height, data }), code);
    }
  });
});
