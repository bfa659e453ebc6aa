import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// pngjs (a dependency of qrcode, without types of its own) as a PNG decoder written by others.
const { PNG } = require('pngjs') as {
  PNG: { sync: { read(png: Buffer): { width: number; height: number; data: Buffer } } };
};

/** The RGBA pixels of a PNG. */
export function readPng(png: Buffer): { width: number; height: number; data: Buffer } {
  return PNG.sync.read(png);
}
