// Import boundaries of src/ (ARCHITECTURE.md): a module is entered through its index.ts, no import cycles,
// and no import up the layers lib/brazil/db/config ← http/gateways/queue ← modules ← jobs/web/app/runtime.
// `npm run lint:deps` fails on any violation.
const ENTRY_POINTS = '^src/(main|runtime|cluster|sandbox-runtime|app|order-hooks)[.]ts$|^src/cli/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'module-index-only',
      comment: 'Another module is imported through its index.ts only.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index[.]ts$'] },
    },
    {
      name: 'no-cycles',
      comment: 'Import cycles make the load order and the layering unclear.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'base-layer-imports-nothing-above',
      comment: 'lib, brazil, db and config are the base layer: they import no other part of src/.',
      severity: 'error',
      from: { path: '^src/(lib|brazil|db)/|^src/config[.]ts$' },
      to: { path: `^src/(http|gateways|queue|modules|jobs|web)/|${ENTRY_POINTS}` },
    },
    {
      name: 'http-gateways-and-queue-import-no-modules',
      comment:
        'http, gateways and the job queue sit under the modules: they import neither modules nor what wires them.',
      severity: 'error',
      from: { path: '^src/(http|gateways|queue)/' },
      to: { path: `^src/(modules|jobs|web)/|${ENTRY_POINTS}` },
    },
    {
      name: 'modules-import-nothing-above',
      comment: 'Modules do not import jobs, web pages, the app or the runtime; those import modules.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: `^src/(jobs|web)/|${ENTRY_POINTS}` },
    },
    {
      name: 'src-imports-no-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
