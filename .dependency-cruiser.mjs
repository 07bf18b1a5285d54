// Import rules of the tree (run by `npm run lint`, so by `npm test`): no import circles, data
// flowing one way (routes, jobs, admin, CLI, connectors -> services -> repositories -> db),
// and connectors that import the SDK and their own folder only. docs/architecture.md explains them.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle (type-only imports count too): a module must be readable without the ones that import it.',
      from: { path: '^(src|connectors|bin|migrations)/' },
      to: { circular: true },
    },
    {
      name: 'one-validator',
      severity: 'error',
      comment:
        'Values are checked by the one Ajv (src/validation/ajv.ts: validate); TypeBox builds schemas only. Its own checker (typebox/value) has other rules and error texts.',
      from: { path: '^(src|connectors|bin|migrations)/' },
      to: { path: 'node_modules/typebox/build/value/' },
    },
    {
      name: 'tracking-above-orders',
      severity: 'error',
      comment:
        'Tracking applies order actions (through its OrderActions port); orders read tracking events. One way: tracking never imports orders.',
      from: { path: '^src/tracking/' },
      to: { path: '^src/orders/' },
    },
    {
      name: 'migrations-import-no-app-code',
      severity: 'error',
      comment: 'Migrations are frozen: they take Kysely<any> and import no app code.',
      from: { path: '^migrations/' },
      to: { path: '^(src|connectors)/' },
    },
    {
      name: 'services-hold-rules',
      severity: 'error',
      comment: 'Services hold the rules: no HTTP, no job-queue library, no raw Kysely (repositories do queries).',
      from: { path: '^src/.+[.]service[.]ts$' },
      to: {
        path: [
          '[.]routes[.]ts$',
          '^src/http/',
          '^src/admin/.+[.]routes[.]ts$',
          '^src/jobs/handlers/',
          '^src/main[.]ts$',
          'node_modules/(fastify|@fastify/[^/]+|pg-boss|kysely|pg)/',
        ],
      },
    },
    {
      name: 'repositories-hold-queries',
      severity: 'error',
      comment: 'Repositories hold queries only: they never call services, routes or the job queue.',
      from: { path: '^src/.+[.]repository[.]ts$' },
      to: { path: ['[.]service[.]ts$', '[.]routes[.]ts$', '^src/http/', 'node_modules/(fastify|@fastify/[^/]+|pg-boss)/'] },
    },
    {
      name: 'callers-go-through-services',
      severity: 'error',
      comment: 'Routes, HTTP plugins, admin, job handlers and CLI commands call services; repositories and the database are behind them.',
      from: { path: ['[.]routes[.]ts$', '^src/http/', '^src/admin/', '^src/jobs/handlers/', '^src/cli/commands/'] },
      to: { path: ['[.]repository[.]ts$', '^src/db/database[.]ts$', 'node_modules/(kysely|pg|pg-boss)/'] },
    },
    {
      name: 'http-and-jobs-never-touch-the-database',
      severity: 'error',
      comment: 'Routes, HTTP plugins, admin and job handlers reach the database only through services (the CLI may migrate and connect).',
      from: { path: ['[.]routes[.]ts$', '^src/http/', '^src/admin/', '^src/jobs/handlers/'] },
      to: { path: '^src/db/' },
    },
    {
      name: 'job-handlers-call-services',
      severity: 'error',
      comment: 'Job handlers call services: no HTTP framework.',
      from: { path: '^src/jobs/handlers/' },
      to: { path: 'node_modules/(fastify|@fastify/[^/]+)/' },
    },
    {
      name: 'feeds-below-the-connector-host',
      severity: 'error',
      comment:
        'The connector host submits feeds; feeds never import the host. What the feed worker writes for the host (content hashes) goes through a port main.ts hands it (src/feeds/feed-ports.ts).',
      from: { path: '^src/feeds/' },
      to: { path: '^src/connectors/' },
    },
    {
      name: 'only-main-knows-connector-types',
      severity: 'error',
      comment: 'The host never imports a connector: main.ts hands it the list (connectors/index.ts). src/ imports only the SDK.',
      from: { path: '^src/', pathNot: '^src/main[.]ts$' },
      to: { path: '^connectors/', pathNot: '^connectors/sdk/' },
    },
    {
      name: 'connector-imports-sdk-and-own-folder',
      severity: 'error',
      comment: 'A connector type imports the SDK (connectors/sdk/index.ts), its own folder, npm packages and node: builtins; nothing else.',
      from: { path: '^connectors/([^/]+)/', pathNot: '^connectors/sdk/' },
      to: {
        dependencyTypesNot: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'core'],
        pathNot: ['^connectors/sdk/index[.]ts$', '^connectors/$1/'],
      },
    },
    {
      name: 'connectors-never-touch-the-database',
      severity: 'error',
      comment: 'A connector (and the SDK) works through its context: never the database, the job queue or Fastify.',
      from: { path: '^connectors/' },
      to: { path: 'node_modules/(kysely|pg|pg-boss|fastify|@fastify/[^/]+)/' },
    },
    {
      name: 'sdk-stands-apart',
      severity: 'error',
      comment:
        'The SDK is the contract the host implements: it imports no host, service, repository, database, HTTP or job code, and no connector.',
      from: { path: '^connectors/sdk/' },
      to: {
        path: [
          '^src/(connectors|db|http|jobs|admin|cli)/',
          '[.]service[.]ts$',
          '[.]repository[.]ts$',
          '^src/main[.]ts$',
          '^connectors/(?!sdk/)',
        ],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too: an import circle of types is still a circle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    // The admin assets and fixtures are read as files, not imported.
    exclude: { path: '[.]css$' },
  },
};
