import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../client/checkout.ts', import.meta.url));

let built: Promise<string> | undefined;

/** The browser script, bundled and minified with esbuild on first use and kept in memory. */
export function clientBundle(): Promise<string> {
  built ??= import('esbuild')
    .then(({ build }) =>
      build({
        entryPoints: [ENTRY],
        bundle: true,
        minify: true,
        format: 'iife',
        target: 'es2020',
        write: false,
        legalComments: 'none',
        logLevel: 'silent',
      }),
    )
    .then((result) => result.outputFiles[0]!.text)
    .catch((error: unknown) => {
      built = undefined;
      throw error;
    });
  return built;
}
