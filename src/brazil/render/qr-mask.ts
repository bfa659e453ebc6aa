/**
 * QR mask selection (ISO/IEC 18004 §7.8) over flat byte arrays. `qrcode` evaluates the eight masks
 * through its BitMatrix accessors, which was about a fifth of a Pix payment's CPU; this scores the same
 * masks with the same penalty rules (as `qrcode` implements them, so both pick the same mask) in tight loops.
 */

/** A symbol as `qrcode`'s `create()` gives it: dark modules and function-pattern (reserved) modules, row-major. */
export type QrMatrix = { size: number; data: Uint8Array; reservedBit: Uint8Array };

const N1 = 3;
const N2 = 3;
const N3 = 40;
const N4 = 10;

type MaskFn = (row: number, col: number) => boolean;
const MASKS: readonly MaskFn[] = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (_i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i * j) % 3) + ((i + j) % 2)) % 2 === 0,
];

const G15 = 0b10100110111;
const G15_MASK = 0b101010000010010;

function bchDigits(value: number): number {
  let digits = 0;
  for (; value !== 0; value >>>= 1) digits++;
  return digits;
}

/** The 15 format bits for an error correction level (its 2-bit indicator) and a mask. */
export function formatBits(levelBits: number, mask: number): number {
  const data = (levelBits << 3) | mask;
  let remainder = data << 10;
  while (bchDigits(remainder) - bchDigits(G15) >= 0) remainder ^= G15 << (bchDigits(remainder) - bchDigits(G15));
  return ((data << 10) | remainder) ^ G15_MASK;
}

/** Writes the format bits of `mask` in both copies, as the standard (and `qrcode`) places them. */
function placeFormat(modules: Uint8Array, size: number, bits: number): void {
  for (let i = 0; i < 15; i++) {
    const dark = (bits >> i) & 1;
    const vertical = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    modules[vertical * size + 8] = dark;
    const horizontal = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 14 - i;
    modules[8 * size + horizontal] = dark;
  }
  modules[(size - 8) * size + 8] = 1;
}

function penalty(m: Uint8Array, size: number): number {
  let points = 0;
  for (let a = 0; a < size; a++) {
    let runRow = 0;
    let runCol = 0;
    let lastRow = -1;
    let lastCol = -1;
    let bitsRow = 0;
    let bitsCol = 0;
    for (let b = 0; b < size; b++) {
      const inRow = m[a * size + b]!;
      const inCol = m[b * size + a]!;
      if (inRow === lastRow) runRow++;
      else {
        if (runRow >= 5) points += N1 + runRow - 5;
        lastRow = inRow;
        runRow = 1;
      }
      if (inCol === lastCol) runCol++;
      else {
        if (runCol >= 5) points += N1 + runCol - 5;
        lastCol = inCol;
        runCol = 1;
      }
      bitsRow = ((bitsRow << 1) & 0x7ff) | inRow;
      bitsCol = ((bitsCol << 1) & 0x7ff) | inCol;
      if (b >= 10) {
        if (bitsRow === 0x5d0 || bitsRow === 0x05d) points += N3;
        if (bitsCol === 0x5d0 || bitsCol === 0x05d) points += N3;
      }
    }
    if (runRow >= 5) points += N1 + runRow - 5;
    if (runCol >= 5) points += N1 + runCol - 5;
  }
  let blocks = 0;
  for (let row = 0; row < size - 1; row++) {
    for (let col = 0; col < size - 1; col++) {
      const at = row * size + col;
      const sum = m[at]! + m[at + 1]! + m[at + size]! + m[at + size + 1]!;
      if (sum === 4 || sum === 0) blocks++;
    }
  }
  points += blocks * N2;
  let dark = 0;
  for (let i = 0; i < m.length; i++) dark += m[i]!;
  return points + Math.abs(Math.ceil((dark * 100) / m.length / 5) - 10) * N4;
}

/** Per symbol size (one per version, so the function patterns are the same): each mask's flips of the data modules. */
const flipsBySize = new Map<number, Uint8Array[]>();

function maskFlips(size: number, reservedBit: Uint8Array): Uint8Array[] {
  let flips = flipsBySize.get(size);
  if (!flips) {
    flips = MASKS.map((applies) => {
      const flip = new Uint8Array(size * size);
      for (let row = 0; row < size; row++) for (let col = 0; col < size; col++) flip[row * size + col] = !reservedBit[row * size + col] && applies(row, col) ? 1 : 0;
      return flip;
    });
    flipsBySize.set(size, flips);
  }
  return flips;
}

/**
 * Given a symbol built with mask `built` (its data modules masked, its format bits for that mask), returns
 * the modules under the mask of lowest penalty (the first on a tie) and that mask.
 */
export function bestMasked(symbol: QrMatrix, built: number, levelBits: number): { mask: number; modules: Uint8Array } {
  const { size, data, reservedBit } = symbol;
  const flips = maskFlips(size, reservedBit);
  const unmask = flips[built]!;
  let best = { mask: 0, modules: data, score: Infinity };
  for (let mask = 0; mask < flips.length; mask++) {
    const flip = flips[mask]!;
    const candidate = new Uint8Array(data.length);
    for (let at = 0; at < data.length; at++) candidate[at] = data[at]! ^ unmask[at]! ^ flip[at]!;
    placeFormat(candidate, size, formatBits(levelBits, mask));
    const score = penalty(candidate, size);
    if (score < best.score) best = { mask, modules: candidate, score };
  }
  return { mask: best.mask, modules: best.modules };
}
