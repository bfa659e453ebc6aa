#!/usr/bin/env node
// The `checkout` command: src/ bundled by esbuild (./bundled-entry.js), with source maps on so that a fault's
// stack names the TypeScript source. Where the cache cannot be written (a read-only installation), the sources
// run through tsx's loader instead.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledEntry } from './bundled-entry.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let entry;
try {
  entry = await bundledEntry(root);
} catch (error) {
  if (!['EACCES', 'EROFS', 'EPERM'].includes(error?.code)) throw error;
  const { register } = await import('tsx/esm/api');
  register();
  entry = new URL('../src/main.ts', import.meta.url).href;
}
process.setSourceMapsEnabled(true);
await import(entry);
