// A worker process on the shipped connectors, with Threads pointed at a stand-in
// (THREADS_API_URL): the publication job as `npm run worker` runs it, for a test that kills it
// mid-publication. Env: DATABASE_URL, THREADS_API_URL, CREDENTIALS_KEY (base64), DATA_DIR.
import { credentialsKey } from '../../../core/connections/credentials.ts';
import { createPool } from '../../../core/db/pool.ts';
import { createLogger } from '../../../core/logger.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { platformApps } from '../../../core/platformApps.ts';
import { fsStorage } from '../../../core/storage/fs.ts';
import { startWorker } from '../../../workers/index.ts';

await startWorker({
  pool: createPool(process.env.DATABASE_URL!, 4),
  concurrency: 1,
  pools: ['publish'],
  log: createLogger('silent'),
  outbound: outboundPolicy({ outboundAllowlist: ['127.0.0.0/8'], outboundAllowHttp: true }),
  storage: fsStorage(process.env.DATA_DIR!),
  platformApps: platformApps({ THREADS_API_URL: process.env.THREADS_API_URL }),
  credentialsKey: credentialsKey(process.env.CREDENTIALS_KEY!),
});
console.log('worker started');
