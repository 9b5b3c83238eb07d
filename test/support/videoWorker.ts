// A worker process running only the video pool, over the test server's database and media
// directory (DATABASE_URL, DATA_DIR): a test kills it mid-export.
import { loadConfig } from '../../core/config.ts';
import { createPool } from '../../core/db/pool.ts';
import { createLogger } from '../../core/logger.ts';
import { storageFor } from '../../core/storage/storage.ts';
import { startWorker } from '../../workers/index.ts';

const config = loadConfig();
await startWorker({
  pool: createPool(config.databaseUrl!, 4),
  concurrency: 1,
  pools: ['video'],
  log: createLogger('silent'),
  storage: storageFor(config),
});
console.log('worker started');
