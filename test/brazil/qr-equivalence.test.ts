/**
 * Property tests: the Pix QR pipeline (our segmentation, mask scoring and PNG writer around `qrcode`'s
 * encoder) gives exactly what `qrcode` alone gives, on many BR Codes and on texts made to stress the
 * segmentation: digit and uppercase runs of every length, lengths across version boundaries.
 */

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import QRCode from 'qrcode';
import { buildPixBrCode } from '../../src/brazil/pix.ts';
import { pixQrModules, pixQrPngBase64 } from '../../src/brazil/render/pix-qr.ts';
import { maskPenalties } from '../../src/brazil/render/qr-mask.ts';
import { qrSymbolPng } from '../../src/brazil/render/qr-png.ts';
import { qrcodeSegments } from '../../src/brazil/render/qr-segments.ts';

type Level = 'L' | 'M' | 'Q' | 'H';
const MASKS = [0, 1, 2, 3, 4, 5, 6, 7] as const;
type Matrix = QRCode.BitMatrix & { data: Uint8Array };

// qrcode's internals are the reference for what its create(text) does: estimate a version, then segment.
const require = createRequire(import.meta.url);
const Segments = require('qrcode/lib/core/segments.js') as {
  rawSplit(text: string): unknown[];
  fromString(text: string, version: number): { mode: { id: string }; data: string | Uint8Array }[];
};
const Version = require('qrcode/lib/core/version.js') as {
  getBestVersionForData(segments: unknown[], level: string): number | undefined;
};
const MaskPattern = require('qrcode/lib/core/mask-pattern.js') as Record<
  'getPenaltyN1' | 'getPenaltyN2' | 'getPenaltyN3' | 'getPenaltyN4',
  (matrix: Matrix) => number
>;
const { PNG } = require('pngjs') as {
  PNG: { sync: { read(png: Buffer): { width: number; height: number; data: Buffer } } };
};

function referenceSegments(text: string, level: Level): { mode: string; data: string }[] {
  const estimated = Version.getBestVersionForData(Segments.rawSplit(text), level);
  return Segments.fromString(text, estimated || 40).map(({ mode, data }) => ({
    mode: mode.id.toLowerCase(),
    data: typeof data === 'string' ? data : Buffer.from(data).toString('latin1'),
  }));
}

function assertSameModules(
  ours: { size: number; get(row: number, col: number): number | boolean },
  theirs: QRCode.BitMatrix,
  what: string,
): void {
  assert.equal(ours.size, theirs.size, `${what}: size`);
  for (let row = 0; row < ours.size; row++) {
    for (let col = 0; col < ours.size; col++)
      if (Number(ours.get(row, col)) !== Number(theirs.get(row, col)))
        assert.fail(`${what}: module ${row},${col} differs`);
  }
}

// Texts up to 700 characters of short runs, of one kind of character (what qrcode's segmentation weighs) or
// mixed: past 180 or so qrcode weighs longer headers (versions 10+), and equal-cost choices get common.
const ALPHABETS = [
  '0123456789',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:',
  'abcdefghijklmnopqrstuvwxyz@_?&=',
  '0123456789ABCDEF',
  '0123456789.',
  '0123456789abcdef',
  '01A',
  '0a',
  'A1b',
];
const run = fc
  .tuple(fc.constantFrom(...ALPHABETS), fc.noBias(fc.integer({ min: 1, max: 12 })))
  .chain(([alphabet, length]) =>
    fc.array(fc.constantFrom(...alphabet), { minLength: length, maxLength: length }).map((chars) => chars.join('')),
  );
const text = fc
  .tuple(fc.noBias(fc.integer({ min: 1, max: 700 })), fc.array(run, { minLength: 1, maxLength: 150, size: 'max' }))
  .map(([length, runs]) => runs.join('').slice(0, length));

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

describe('segments: the ones qrcode would choose for the text', () => {
  test('for BR Codes, and the whole symbol (segments and mask) is the one qrcode builds', () => {
    fc.assert(
      fc.property(brCode, (code) => {
        assert.deepEqual(qrcodeSegments(code, 'M'), referenceSegments(code, 'M'), code);
        assertSameModules(pixQrModules(code), QRCode.create(code, { errorCorrectionLevel: 'M' }).modules, code);
      }),
      { numRuns: 300 },
    );
  });

  test('for texts of digit, uppercase and other runs, at every level, and qrcode builds the same symbol from them', () => {
    fc.assert(
      fc.property(text, fc.constantFrom<Level>('L', 'M', 'Q', 'H'), (data, level) => {
        const segments = qrcodeSegments(data, level);
        assert.deepEqual(segments, referenceSegments(data, level), data);
        const ours = QRCode.create(segments, { errorCorrectionLevel: level, maskPattern: 0 });
        const theirs = QRCode.create(data, { errorCorrectionLevel: level, maskPattern: 0 });
        assert.equal(ours.version, theirs.version);
        assertSameModules(ours.modules, theirs.modules, data);
      }),
      { numRuns: 400 },
    );
  });

  test('for every length up to 1400 of a BR Code-like text, across the versions where qrcode first estimates another header size', () => {
    const pattern =
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865406123.455802BR5913FULANO DE TAL6008BRASILIA62070503***6304ABCD1234efgh';
    const long = pattern.repeat(Math.ceil(1400 / pattern.length));
    let estimateInAnotherClass = 0;
    for (let length = 1; length <= 1400; length += length < 300 ? 1 : 7) {
      const data = long.slice(0, length);
      assert.deepEqual(qrcodeSegments(data, 'M'), referenceSegments(data, 'M'), `length ${length}`);
      // Character count indicators change size at versions 10 and 27; count the cases where the estimate decides them.
      const estimated = Version.getBestVersionForData(Segments.rawSplit(data), 'M')!;
      const final = QRCode.create(qrcodeSegments(data, 'M'), { errorCorrectionLevel: 'M', maskPattern: 0 }).version;
      if (estimated < 10 !== final < 10 || estimated < 27 !== final < 27) estimateInAnotherClass++;
    }
    assert.ok(estimateInAnotherClass > 10, `${estimateInAnotherClass} lengths where the estimate matters`);
  });

  test('on a tie, the path dijkstrajs takes', () => {
    // In qrcode's graph "a" as byte then "AA0AA" as alphanumeric weighs as much as "aAA0AA" as byte; it keeps the latter.
    const data = 'aAA0AA6534103';
    assert.deepEqual(qrcodeSegments(data, 'M'), [
      { mode: 'byte', data: 'aAA0AA' },
      { mode: 'numeric', data: '6534103' },
    ]);
    assert.deepEqual(qrcodeSegments(data, 'M'), referenceSegments(data, 'M'));
  });

  test('text outside ASCII is left for qrcode to split', () => {
    assert.equal(qrcodeSegments('Açaí 123', 'M'), 'Açaí 123');
    assert.equal(qrcodeSegments('', 'M'), '');
  });
});

describe('mask penalties: the ones qrcode computes', () => {
  test('for each of the 8 masks, whatever mask the symbol was built with, at every level and many sizes', () => {
    fc.assert(
      fc.property(text, fc.constantFrom<Level>('L', 'M', 'Q', 'H'), fc.constantFrom(...MASKS), (data, level, built) => {
        const symbol = QRCode.create(data, { errorCorrectionLevel: level, maskPattern: built });
        const theirs = MASKS.map((mask) => {
          const masked = QRCode.create(data, { errorCorrectionLevel: level, maskPattern: mask }).modules as Matrix;
          return (
            MaskPattern.getPenaltyN1(masked) +
            MaskPattern.getPenaltyN2(masked) +
            MaskPattern.getPenaltyN3(masked) +
            MaskPattern.getPenaltyN4(masked)
          );
        });
        assert.deepEqual(maskPenalties(symbol.modules, built, symbol.errorCorrectionLevel.bit), theirs);
      }),
      { numRuns: 60 },
    );
  });
});

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
        const { width, height, data } = PNG.sync.read(qrSymbolPng(modules, scale, margin));
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
      const ours = PNG.sync.read(Buffer.from(await pixQrPngBase64(code), 'base64'));
      const theirs = PNG.sync.read(
        await QRCode.toBuffer(code, { errorCorrectionLevel: 'M', margin: 4, scale: 8, type: 'png' }),
      );
      assert.equal(ours.width, theirs.width);
      for (let pixel = 0; pixel < ours.width * ours.height; pixel++)
        if (ours.data[pixel * 4] !== theirs.data[pixel * 4]) assert.fail(`${code}: pixel ${pixel}`);
    }
  });
});
