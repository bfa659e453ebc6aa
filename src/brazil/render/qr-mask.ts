/**
 * QR mask selection (ISO/IEC 18004 §7.8) with the penalty rules as `qrcode` implements them, so both pick
 * the same mask. `qrcode` scores the eight masks through BitMatrix accessors, a fifth of a Pix payment's
 * CPU. Here each candidate is held as 32-bit words, one bit per module, once by rows and once by columns:
 * walking the row words down the symbol scores 32 columns at a time, walking the column words 32 rows.
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

/** A matrix as bits: word w of row r holds columns 32w… of that row, word w of column c rows 32w… of it. */
type Packed = { rows: Int32Array; cols: Int32Array };

function pack(modules: Uint8Array, size: number, words: number): Packed {
  return { rows: packLines(modules, size, words, size, 1), cols: packLines(modules, size, words, 1, size) };
}

/** Line `l` starts at module `l * lineStep` and goes on by `step`: its bits, 32 a word. */
function packLines(modules: Uint8Array, size: number, words: number, lineStep: number, step: number): Int32Array {
  const packed = new Int32Array(size * words);
  for (let line = 0; line < size; line++) {
    for (let word = 0; word < words; word++) {
      const count = Math.min(32, size - 32 * word);
      let bits = 0;
      for (let bit = 0, at = line * lineStep + 32 * word * step; bit < count; bit++, at += step)
        bits |= modules[at]! << bit;
      packed[line * words + word] = bits;
    }
  }
  return packed;
}

function bitCount(word: number): number {
  word -= (word >>> 1) & 0x55555555;
  word = (word & 0x33333333) + ((word >>> 2) & 0x33333333);
  return Math.imul((word + (word >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The low `count` bits set (all 32 from 32 on). */
function lowBits(count: number): number {
  return count >= 32 ? -1 : ~(-1 << Math.max(count, 0));
}

/** Lanes where 11 lines from `at` read dark-light-dark-dark-dark-light-dark beside 4 light, either way round (N3). */
function finderLikeLanes(lines: Int32Array, at: number, step: number): number {
  const l0 = lines[at]!,
    l1 = lines[at + step]!,
    l2 = lines[at + 2 * step]!,
    l3 = lines[at + 3 * step]!;
  const l4 = lines[at + 4 * step]!,
    l5 = lines[at + 5 * step]!,
    l6 = lines[at + 6 * step]!,
    l7 = lines[at + 7 * step]!;
  const l8 = lines[at + 8 * step]!,
    l9 = lines[at + 9 * step]!,
    l10 = lines[at + 10 * step]!;
  const finderFirst = l0 & ~l1 & l2 & l3 & l4 & ~l5 & l6 & ~(l7 | l8 | l9 | l10);
  const finderLast = ~(l0 | l1 | l2 | l3) & l4 & ~l5 & l6 & l7 & l8 & ~l9 & l10;
  return finderFirst | finderLast;
}

/** N1 (runs of 5 or more) and N3 (finder-like patterns) along every line that crosses `lines` in order. */
function linePenalty(lines: Int32Array, size: number, words: number): number {
  let points = 0;
  for (let word = 0; word < words; word++) {
    const lanes = lowBits(size - 32 * word);
    // A run of n ≥ 5 costs N1 + n - 5: one point per window of five equal modules, N1 - 1 more for its first.
    // sameK: lanes where the line K steps back equals the one before it.
    let same1 = 0,
      same2 = 0,
      same3 = 0,
      same4 = 0,
      same5 = 0;
    for (let at = word + words; at < size * words; at += words) {
      same5 = same4;
      same4 = same3;
      same3 = same2;
      same2 = same1;
      same1 = ~(lines[at - words]! ^ lines[at]!) & lanes;
      const five = same1 & same2 & same3 & same4;
      if (five !== 0) points += bitCount(five) + (N1 - 1) * bitCount(five & ~same5);
    }
    for (let at = word; at + 10 * words < size * words; at += words) {
      const found = finderLikeLanes(lines, at, words);
      if (found !== 0) points += N3 * bitCount(found);
    }
  }
  return points;
}

/** N2: 2×2 blocks of one colour, from the row words (column c + 1 brought to lane c by a shift). */
function blockPenalty(rows: Int32Array, size: number, words: number): number {
  let blocks = 0;
  for (let at = 0; at < (size - 1) * words; at++) {
    const word = at % words;
    const top = rows[at]!;
    const below = rows[at + words]!;
    // Lane 31's right neighbour is lane 0 of the next word; the last word has none.
    const nextTop = word === words - 1 ? 0 : rows[at + 1]!;
    const nextBelow = word === words - 1 ? 0 : rows[at + words + 1]!;
    const vertical = ~(top ^ below);
    const verticalRight = (vertical >>> 1) | (~(nextTop ^ nextBelow) << 31);
    const horizontal = ~(top ^ ((top >>> 1) | (nextTop << 31)));
    blocks += bitCount(vertical & verticalRight & horizontal & lowBits(size - 1 - 32 * word));
  }
  return N2 * blocks;
}

function penalty(candidate: Packed, size: number, words: number): number {
  const { rows, cols } = candidate;
  let dark = 0;
  for (let at = 0; at < rows.length; at++) dark += bitCount(rows[at]!);
  const n4 = Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10) * N4;
  return linePenalty(cols, size, words) + linePenalty(rows, size, words) + blockPenalty(rows, size, words) + n4;
}

/**
 * Per symbol size (one per version, so the same reserved modules) and level, what each mask changes: its
 * flips of the data modules, its format bits and the dark module, as bytes and packed.
 */
const patternsBySymbol = new Map<number, { bytes: Uint8Array[]; packed: Packed[] }>();

function maskPatterns(
  size: number,
  reservedBit: Uint8Array,
  levelBits: number,
): { bytes: Uint8Array[]; packed: Packed[] } {
  const key = size * 4 + levelBits;
  let patterns = patternsBySymbol.get(key);
  if (!patterns) {
    const bytes = MASKS.map((applies, mask) => {
      const pattern = new Uint8Array(size * size);
      for (let row = 0; row < size; row++)
        for (let col = 0; col < size; col++)
          pattern[row * size + col] = !reservedBit[row * size + col] && applies(row, col) ? 1 : 0;
      placeFormat(pattern, size, formatBits(levelBits, mask));
      return pattern;
    });
    patterns = { bytes, packed: bytes.map((pattern) => pack(pattern, size, Math.ceil(size / 32))) };
    patternsBySymbol.set(key, patterns);
  }
  return patterns;
}

/** The penalty of each mask for a symbol built with mask `built` (its data modules masked, its format bits for that mask). */
export function maskPenalties(symbol: QrMatrix, built: number, levelBits: number): number[] {
  const { size, data, reservedBit } = symbol;
  const words = Math.ceil(size / 32);
  const patterns = maskPatterns(size, reservedBit, levelBits).packed;
  // XOR with the built mask's pattern leaves the unmasked data; XOR with another mask's pattern applies that one.
  const bare = pack(data, size, words);
  for (let at = 0; at < bare.rows.length; at++) {
    bare.rows[at]! ^= patterns[built]!.rows[at]!;
    bare.cols[at]! ^= patterns[built]!.cols[at]!;
  }
  const candidate: Packed = { rows: new Int32Array(bare.rows.length), cols: new Int32Array(bare.cols.length) };
  return patterns.map(({ rows, cols }) => {
    for (let at = 0; at < rows.length; at++) {
      candidate.rows[at] = bare.rows[at]! ^ rows[at]!;
      candidate.cols[at] = bare.cols[at]! ^ cols[at]!;
    }
    return penalty(candidate, size, words);
  });
}

/** The modules under the mask of lowest penalty (the first on a tie, as `qrcode` picks), and that mask. */
export function bestMasked(symbol: QrMatrix, built: number, levelBits: number): { mask: number; modules: Uint8Array } {
  const penalties = maskPenalties(symbol, built, levelBits);
  const mask = penalties.indexOf(Math.min(...penalties));
  const { bytes } = maskPatterns(symbol.size, symbol.reservedBit, levelBits);
  const [data, from, to] = [symbol.data, bytes[built]!, bytes[mask]!];
  const modules = new Uint8Array(data.length);
  for (let at = 0; at < data.length; at++) modules[at] = data[at]! ^ from[at]! ^ to[at]!;
  return { mask, modules };
}
