import type { BuildOptions } from 'esbuild';

export function bundledEntry(root: string, cacheDir?: string): Promise<string>;
export function nodeBundleOptions(): BuildOptions;
export const PACKAGES_WITH_FILES: string[];
