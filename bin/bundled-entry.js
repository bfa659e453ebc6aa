// The `checkout` command runs a bundle of src/ and the npm packages it uses, made by esbuild, not the TypeScript
// sources through a loader and hundreds of package files resolved one by one: a process then starts in about a
// fifth of the CPU time (every command, every service and worker process). The bundle is made on the first run
// after any file under src/ changed and kept in node_modules/.cache/checkout.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Changes whenever the way the bundle is made changes, so an older bundle is never reused. */
const BUILD_FORMAT = '4';
/** Bundles of other source states are removed once this old (a process may still be starting from one). */
const STALE_AFTER_MS = 60 * 60 * 1000;

/**
 * The file URL of the bundle of `root`'s src/main.ts for the sources as they are now, building it when missing.
 * Processes starting at once may build it side by side: each writes its own directory and renames it into place.
 */
export async function bundledEntry(root, cacheDir = join(root, 'node_modules', '.cache', 'checkout')) {
  const outdir = join(cacheDir, sourceKey(root));
  const entry = join(outdir, 'main.js');
  if (!existsSync(entry)) {
    const building = `${outdir}.${process.pid}.partial`;
    await build(root, building);
    try {
      renameSync(building, outdir);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(entry)) throw error;
    }
    removeStale(cacheDir, outdir);
  }
  return pathToFileURL(entry).href;
}

/** Names the sources: the path of every file under src/ with its size and modification time, and tsconfig.json. */
function sourceKey(root) {
  const hash = createHash('sha256').update(`${BUILD_FORMAT}\0${root}\0`);
  hash.update(readFileSync(join(root, 'tsconfig.json')));
  const files = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${file}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 20);
}

/**
 * Packages that read files of their own at run time (PGlite its WebAssembly and data, pdfkit its fonts,
 * swagger-ui its pages, pino its transport workers, esbuild its binary): they stay imports of the installed
 * package, as they must find those files next to their code.
 */
export const PACKAGES_WITH_FILES = ['@electric-sql/pglite', '@fastify/swagger-ui', 'pdfkit', 'pino', 'esbuild'];

async function build(root, outdir) {
  const esbuild = await import('esbuild');
  const options = nodeBundleOptions();
  delete options.packages;
  await esbuild.build({
    ...options,
    external: PACKAGES_WITH_FILES.flatMap((name) => [name, `${name}/*`]),
    // Bundled CommonJS packages require node's built-in modules.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    entryPoints: [join(root, 'src', 'main.ts')],
    outdir,
  });
}

/**
 * How our TypeScript is bundled for node (the command here, the test processes in scripts/run-tests.ts): ESM
 * with shared chunks (each command family stays a chunk of its own, loaded only by the commands that use it),
 * npm packages left as imports, linked source maps, every module keeping its own location.
 */
export function nodeBundleOptions() {
  return {
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'error',
    plugins: [sourceLocations()],
  };
}

/**
 * An esbuild plugin: every source file keeps its own `import.meta.url`, `dirname` and `filename` (migrations,
 * page templates and browser scripts are read next to the module that reads them), not the bundle's. A module
 * that mentions `import.meta` starts with constants of its own location (on its first line, so line numbers
 * stay), and `define` points the expressions at them: text inside strings is left alone.
 */
const sourceLocations = () => ({
  name: 'source-locations',
  setup(build) {
    build.initialOptions.define = {
      ...build.initialOptions.define,
      'import.meta.url': '__source_url',
      'import.meta.dirname': '__source_dirname',
      'import.meta.filename': '__source_filename',
    };
    build.onLoad({ filter: /\.tsx?$/ }, (args) => {
      if (args.path.includes(`${join('node_modules', '')}`)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta')) return undefined;
      const location =
        `const __source_url = ${JSON.stringify(pathToFileURL(args.path).href)}, ` +
        `__source_dirname = ${JSON.stringify(dirname(args.path))}, ` +
        `__source_filename = ${JSON.stringify(args.path)}; `;
      return { contents: location + text, loader: args.path.endsWith('.tsx') ? 'tsx' : 'ts' };
    });
  },
});

function removeStale(cacheDir, current) {
  for (const name of readdirSync(cacheDir)) {
    const path = join(cacheDir, name);
    if (path === current) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_AFTER_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another process removed it first.
    }
  }
}
