// @ts-check
/**
 * Stryker, the TypeScript half of `npm run mutacao -- <file.ts>` (scripts/mutacao.ts passes the
 * files as --mutate; docs/mutacao.md). Its vitest runner runs only the tests related to the
 * mutated files (vitest's `related`: the test files that import them), one process at a time.
 * Reports under .data/mutacao/. Stryker works in a copy of the project under .data/stryker-tmp.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.config.ts', related: true, pool: 'forks' },
  coverageAnalysis: 'perTest',
  concurrency: 1,
  timeoutMS: 60_000,
  // the first run (every related test, with coverage) may start the test cluster and run db tests
  dryRunTimeoutMinutes: 30,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: '.data/mutacao/stryker.html' },
  jsonReporter: { fileName: '.data/mutacao/stryker.json' },
  tempDirName: '.data/stryker-tmp',
  // Stryker rewrites the sandbox's tsconfig (its `extends` and `references` paths) through the
  // TypeScript compiler API, which TypeScript 7 does not have; ours has neither, so it is
  // left as it is: a name that is no file turns that step off.
  tsconfigFile: 'tsconfig.stryker-unused.json',
  ignorePatterns: ['.data', 'scratch', 'scratch-tmp', 'coverage', 'dist', 'test-artifacts'],
};
