/**
 * The architecture, checked on every `npm run check` and in `.ci/run` (docs/architecture.md):
 * routes → modules → kernel → db / connectors → lib, no cycles, modules through public entries.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle ties files (and the modules they live in) into one knot.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-is-a-leaf',
      comment: 'lib/ holds leaf helpers: it imports nothing of ours outside lib/.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'db-does-not-import-upward',
      comment: 'The store knows nothing about modules, HTTP, jobs or the kernel.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/(db|lib)/' },
    },
    {
      name: 'kernel-imports-no-module',
      comment: 'The domain kernel is what every module may import; it imports no module (only lib and db types).',
      severity: 'error',
      from: { path: '^src/kernel/' },
      to: { path: '^src/', pathNot: '^src/(kernel|lib|db)/' },
    },
    {
      name: 'modules-use-public-entries',
      comment: "A module uses another module through its index.ts, never the other module's internals.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'modules-do-not-import-http',
      comment: 'Modules return domain results; only the HTTP layer knows Fastify, statuses and pages.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: {
        path: [
          '^src/(http|jobs|cli|catalogue)/',
          '^src/(app|main|config|runtime|composition)\\.ts$',
          '(^|/)node_modules/(fastify|@fastify)/',
        ],
      },
    },
    {
      name: 'connectors-stay-out-of-the-domain',
      comment: 'Connectors translate wire ↔ domain values; they never touch the database, modules or HTTP.',
      severity: 'error',
      from: { path: '^src/connectors/' },
      to: { path: '^src/(db|modules|http|jobs|cli|catalogue)/' },
    },
    {
      name: 'sandbox-is-another-system',
      comment: 'The simulated providers are reached over HTTP only; they use lib.',
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: '^src/(sandbox|lib)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: {
      dot: { collapsePattern: '^src/(modules|http|connectors|jobs|cli|db|lib|kernel|sandbox|catalogue)/[^/]+' },
    },
  },
};
