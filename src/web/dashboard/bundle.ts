import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./app/main.tsx', import.meta.url));
const STYLES = fileURLToPath(new URL('./app/styles.css', import.meta.url));

export type DashboardAssets = { script: string; styles: string };

let built: Promise<DashboardAssets> | undefined;

/**
 * The single-page app, bundled and minified with esbuild (Preact, the router and our code) on first use and kept in
 * memory: `npm ci && npm start` needs no build step, and nothing is fetched at run time.
 */
export function dashboardAssets(): Promise<DashboardAssets> {
  built ??= Promise.all([
    import('esbuild').then(({ build }) =>
      build({
        entryPoints: [ENTRY],
        bundle: true,
        minify: true,
        format: 'esm',
        target: 'es2020',
        jsx: 'automatic',
        jsxImportSource: 'preact',
        write: false,
        legalComments: 'none',
        logLevel: 'silent',
      }),
    ),
    readFile(STYLES, 'utf8'),
  ])
    .then(([result, styles]) => ({ script: result.outputFiles[0]!.text, styles }))
    .catch((error: unknown) => {
      built = undefined;
      throw error;
    });
  return built;
}
