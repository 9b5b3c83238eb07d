// The browser suite (npm run test:browser): the dashboard in Debian's Chromium, driven by
// playwright-core, against a real server and the built pages. .ci/run installs Chromium.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
