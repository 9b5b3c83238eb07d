// A worker process that dies (SIGKILL) right after its connector published and before the
// outcome commits: the crash case of the publication job. Env: DATABASE_URL, PLATFORM_URL.
import { createPool } from '../../core/db/pool.ts';
import { createLogger } from '../../core/logger.ts';
import { startWorker } from '../../workers/index.ts';
import { platformConnector } from './fakePlatform.ts';

const pool = createPool(process.env.DATABASE_URL!, 4);
const connector = platformConnector(process.env.PLATFORM_URL!, () => {
  process.kill(process.pid, 'SIGKILL');
});
await startWorker({
  pool,
  concurrency: 1,
  log: createLogger('silent'),
  connectors: { mastodon: connector },
});
console.log('worker started');
