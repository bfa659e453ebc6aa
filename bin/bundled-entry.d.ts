import type { Plugin } from 'esbuild';

export function bundledEntry(root: string, cacheDir?: string): Promise<string>;
export function sourceLocations(): Plugin;
