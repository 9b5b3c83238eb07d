import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 ships CommonJS (main) and ESM (module) copies. Node, and so graphql-yoga in
  // production, loads the CommonJS one; Vite would pick the ESM one for our own files, and two
  // copies of graphql refuse each other's schema objects. Resolve it the way Node does.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    // The PDS end-to-end, browser and fault suites run on their own (npm run test:e2e,
    // test:browser, test:faults).
    exclude: ['test/e2e/**', 'test/browser/**', 'test/faults/**', '**/node_modules/**'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
