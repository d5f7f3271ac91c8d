/**
 * Jest runs TypeScript as native ES modules (middy 7 and fauxqs are ESM-only): esbuild strips the types,
 * `--experimental-vm-modules` (set in the npm script) lets Jest load ESM. Tiers are folders:
 * test/unit (pure functions), test/http (through HTTP into the local runtime with embedded emulators),
 * test/connectors (connectors, credentials and the lifecycle against the ATS simulators of test/simulators),
 * test/cdk (template assertions and an offline synth), test/container (the Dockerfile, and its bundle run as a
 * process against the emulators), test/browser (the connect page and /docs in headless Chromium through
 * playwright-core, with axe-core).
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': '<rootDir>/test/support/esbuild-transform.cjs',
  },
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // The layer imports of package.json (`#platform/clients.js` → shared/platform/clients.ts), and the
    // generated modules (`#generated/jobs-validators.js` → shared/generated/jobs-validators.ts).
    '^#(platform|companies|jobs|applications|delivery|http|generated)/(.*)\\.js$': '<rootDir>/shared/$1/$2.ts',
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  // DynamoDB Local (AWS's emulator), one JVM per worker (P251); each test runtime makes its own table in its worker's.
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testSequencer: '<rootDir>/test/support/sequencer.cjs',
  // A guard against a hang, not a performance check (those are `npm run bench*` and the capacity tests): on two
  // busy cores a test can take ten times what it takes alone (P246).
  testTimeout: 180_000,
  // Three workers on two cores (P249), each with a DynamoDB Local of its own (P251): whole runs 686–724 s,
  // against 874–1,069 s with one JVM for all three and 1,049–1,226 s with two workers.
  maxWorkers: 3,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
};
