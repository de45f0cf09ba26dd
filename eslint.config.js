import tseslint from 'typescript-eslint';

// The dependency direction of house-style.md, enforced: routes → modules → db/connectors → lib.
const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: patterns.map((group) => ({ group: [group], message })) }],
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'test-output/**', 'sdk/dist/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['src/modules/**/*.ts'],
    rules: restrict(['fastify', '**/http/**', '@fastify/*'], 'modules never import Fastify or the HTTP layer'),
  },
  {
    files: ['src/connectors/**/*.ts'],
    rules: restrict(
      ['**/db/**', '**/modules/**', '**/http/**', 'fastify'],
      'connectors never touch the database, modules or HTTP',
    ),
  },
  {
    // The sandbox providers are the outside world: Tributary reaches them only over HTTP.
    files: ['src/sandbox/**/*.ts'],
    rules: restrict(
      ['**/db/**', '**/modules/**', '**/http/**', '**/connectors/**', '**/jobs/**'],
      'sandbox providers are a separate system: they use lib only',
    ),
  },
  {
    files: ['src/lib/**/*.ts'],
    rules: restrict(['**/db/**', '**/modules/**', '**/http/**', '**/connectors/**', '**/jobs/**'], 'lib holds leaf helpers only'),
  },
  {
    files: ['src/modules/routing/**/*.ts', 'src/modules/payments/payment-states.ts'],
    rules: restrict(['**/db/**', 'node:*', 'fastify'], 'routing and state transitions stay pure'),
  },
  { files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'], rules: { 'no-console': 'off' } },
);
