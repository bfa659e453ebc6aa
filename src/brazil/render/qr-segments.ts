/**
 * The segments `qrcode` (1.5) chooses for a text, found without its graph search. `QRCode.create(text)` cuts
 * the text into runs of digits, of the other alphanumeric characters and of the rest, and picks each run's
 * mode with dijkstrajs over a graph of objects: about half of a Pix QR's CPU. Given the same segments,
 * `QRCode.create` builds the same symbol. The weights are qrcode's (lib/core/segments.js, buildGraph),
 * quirks included, and ties go the way dijkstrajs breaks them, so the choice is the same, not just as short.
 */

import { createRequire } from 'node:module';
import type { QRCodeSegment } from 'qrcode';

type Mode = { ccBits: number[] };
type RawSegment = { mode: Mode; getLength(): number; getBitsLength(): number };

// qrcode's own tables, for the version it estimates first: that version sets the header sizes the search weighs.
const require = createRequire(import.meta.url);
const QrMode = require('qrcode/lib/core/mode.js') as {
  NUMERIC: Mode;
  ALPHANUMERIC: Mode;
  BYTE: Mode;
  getCharCountIndicator(mode: Mode, version: number): number;
};
const QrVersion = require('qrcode/lib/core/version.js') as {
  getBestVersionForData(segments: RawSegment[], level: string): number | undefined;
};

// Mode numbers below: 0 numeric, 1 alphanumeric, 2 byte. A run of kind k can be written in modes k…2.
const MODES = [QrMode.NUMERIC, QrMode.ALPHANUMERIC, QrMode.BYTE];
const MODE_NAMES = ['numeric', 'alphanumeric', 'byte'] as const;
const START = -1;

const KIND = new Uint8Array(128).fill(2);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:') KIND[ch.charCodeAt(0)] = 1;
for (const ch of '0123456789') KIND[ch.charCodeAt(0)] = 0;

function bitsLength(mode: number, length: number): number {
  if (mode === 0) return 10 * Math.floor(length / 3) + (length % 3 ? (length % 3) * 3 + 1 : 0);
  if (mode === 1) return 11 * Math.floor(length / 2) + 6 * (length % 2);
  return 8 * length;
}

/** A run of one kind of character, shaped like the segments qrcode estimates the version from. */
class Run implements RawSegment {
  constructor(
    readonly kind: number,
    readonly start: number,
    readonly length: number,
  ) {}
  get mode(): Mode {
    return MODES[this.kind]!;
  }
  getLength(): number {
    return this.length;
  }
  getBitsLength(): number {
    return bitsLength(this.kind, this.length);
  }
}

/** qrcode's split of an ASCII text: maximal runs of digits, of other alphanumeric characters, of the rest. */
function runsOf(text: string): Run[] {
  const runs: Run[] = [];
  let start = 0;
  for (let at = 1; at <= text.length; at++) {
    const kind = KIND[text.charCodeAt(start)]!;
    if (at < text.length && KIND[text.charCodeAt(at)] === kind) continue;
    runs.push(new Run(kind, start, at - start));
    start = at;
  }
  return runs;
}

/**
 * What `QRCode.create(text, { errorCorrectionLevel: level })` would encode, as segments to pass instead of
 * the text. Text outside ASCII (where qrcode counts UTF-8 bytes) is returned as it is, for qrcode to split.
 */
export function qrcodeSegments(text: string, level: 'L' | 'M' | 'Q' | 'H'): QRCodeSegment[] | string {
  if (text === '' || !/^[\x00-\x7f]*$/.test(text)) return text;
  const runs = runsOf(text);
  const version = QrVersion.getBestVersionForData(runs, level) ?? 40;
  const modes = pathModes(
    runs,
    MODES.map((mode) => 4 + QrMode.getCharCountIndicator(mode, version)),
  );
  // Adjacent runs in the same mode make one segment, as qrcode merges them.
  const segments: QRCodeSegment[] = [];
  for (let i = 0; i < runs.length;) {
    let end = i + 1;
    while (end < runs.length && modes[end] === modes[i]) end++;
    const last = runs[end - 1]!;
    segments.push({
      mode: MODE_NAMES[modes[i]!]!,
      data: text.slice(runs[i]!.start, last.start + last.length),
    } as QRCodeSegment);
    i = end;
  }
  return segments;
}

/** The mode of each run on the path dijkstrajs finds through qrcode's graph; `header[m]`: mode m's header bits. */
function pathModes(runs: Run[], header: number[]): Int8Array {
  // Node (run i, mode m) is at i * 3 + m: its path cost and the mode of its predecessor on run i - 1.
  const cost = new Float64Array(runs.length * 3).fill(Infinity);
  const from = new Int8Array(runs.length * 3);
  for (let i = 0; i < runs.length; i++) {
    const { kind, length } = runs[i]!;
    const [firstPrevious, lastPrevious] = i === 0 ? [START, START] : [runs[i - 1]!.kind, 2];
    for (let previous = firstPrevious; previous <= lastPrevious; previous++) {
      const base = i === 0 ? 0 : cost[(i - 1) * 3 + previous]!;
      // buildGraph's lastCount of the previous node, updated as it visits this run's nodes in mode order.
      let lastCount = 0;
      for (let mode = kind; mode <= 2; mode++) {
        let weight: number;
        if (mode === previous) {
          weight = bitsLength(mode, lastCount + length) - bitsLength(mode, lastCount);
          lastCount += length;
        } else {
          lastCount = length;
          weight = bitsLength(mode, length) + header[mode]!;
        }
        const at = i * 3 + mode;
        if (
          base + weight < cost[at]! ||
          (base + weight === cost[at] && dequeuedFirst(cost, from, i - 1, previous, from[at]!))
        ) {
          cost[at] = base + weight;
          from[at] = previous;
        }
      }
    }
  }
  const last = runs.length - 1;
  const modes = new Int8Array(runs.length);
  let mode = runs[last]!.kind;
  for (let other = mode + 1; other <= 2; other++) if (dequeuedFirst(cost, from, last, other, mode)) mode = other;
  for (let i = last; i >= 0; i--) {
    modes[i] = mode;
    mode = from[i * 3 + mode]!;
  }
  return modes;
}

/**
 * Whether dijkstrajs dequeues node a of run i before node b: the cheaper one; at equal cost the one queued
 * first (its queue sorts stably), i.e. the one whose predecessor was dequeued first, or the lower mode of
 * the same predecessor (the order it visits them in).
 */
function dequeuedFirst(cost: Float64Array, from: Int8Array, i: number, a: number, b: number): boolean {
  for (; ; i--) {
    if (cost[i * 3 + a] !== cost[i * 3 + b]) return cost[i * 3 + a]! < cost[i * 3 + b]!;
    const fromA = from[i * 3 + a]!;
    const fromB = from[i * 3 + b]!;
    if (fromA === fromB) return a < b;
    a = fromA;
    b = fromB;
  }
}
