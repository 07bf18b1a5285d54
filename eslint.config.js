// Lint: typescript-eslint's recommended rules, plus import boundaries that keep data flowing
// one way: routes/jobs/connectors -> services -> repositories -> database.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (files, patterns, message) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }] },
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'scratch/**', 'coverage/**', 'test-artifacts/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', fetch: 'readonly', AbortSignal: 'readonly', Buffer: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['migrations/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-imports': ['error', { patterns: [{ group: ['../src/*', '../src/**', '../../src/**'], message: 'Migrations are frozen: they take Kysely<any> and import no app code.' }] }],
    },
  },
  restrict(['src/**/*.routes.ts', 'src/http/**/*.ts', 'src/admin/**/*.ts'],
    ['**/*.repository.ts', 'kysely', 'pg', 'pg-boss', '**/db/database.ts'],
    'HTTP code calls services; repositories and the database are behind them.'),
  restrict(['src/**/*.service.ts'],
    ['fastify', '@fastify/*', 'pg-boss', 'kysely', 'pg', '**/*.routes.ts', '**/http/**'],
    'Services hold the rules: no HTTP, no job-queue library, no raw Kysely (repositories do queries).'),
  restrict(['src/**/*.repository.ts'],
    ['fastify', '@fastify/*', 'pg-boss', '**/*.service.ts', '**/*.routes.ts'],
    'Repositories hold queries only.'),
  restrict(['src/jobs/handlers/**/*.ts'],
    ['**/*.repository.ts', 'kysely', 'pg', 'fastify', '**/db/**'],
    'Job handlers call services.'),
  restrict(['connectors/**/*.ts'],
    ['**/src/db/**', '**/*.repository.ts', 'kysely', 'pg', 'pg-boss', 'fastify', '@fastify/*'],
    'A connector gets services through its context; it never touches the database or Fastify.'),
);
