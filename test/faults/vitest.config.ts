// The fault suite (npm run test:faults): kills real worker and ffmpeg processes and stops
// Postgres servers of its own (never the one the other tests share). Files run one at a time,
// for each starts processes and servers that the machine's two cores must carry.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default defineConfig({
  root,
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/faults/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
