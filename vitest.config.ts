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
    // Vitest's default on a 2-core machine is one file at a time; most of a file's time is
    // spent waiting on Postgres, servers and child processes, so two run side by side.
    maxWorkers: 2,
    experimental: {
      // Node runs our TypeScript itself (type stripping, as `npm start` does): no Vite transform
      // per file, and graphql loads as Node loads it.
      viteModuleRunner: false,
    },
  },
});
