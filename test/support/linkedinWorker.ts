// A worker process publishing to LinkedIn at LINKEDIN_API_URL (the stand-in), for the crash
// test: the stand-in kills it (SIGKILL) after LinkedIn created the post and before it answers.
// Env: DATABASE_URL, LINKEDIN_API_URL, CREDENTIALS_KEY, DATA_DIR.
import { credentialsKey } from '../../core/connections/credentials.ts';
import { linkedinConnector } from '../../core/connectors/linkedin/index.ts';
import { createPool } from '../../core/db/pool.ts';
import { createLogger } from '../../core/logger.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { fsStorage } from '../../core/storage/fs.ts';
import { startWorker } from '../../workers/index.ts';

const pool = createPool(process.env.DATABASE_URL!, 4);
await startWorker({
  pool,
  concurrency: 1,
  log: createLogger('silent'),
  connectors: {
    linkedin: linkedinConnector({
      outbound: outboundPolicy({ outboundAllowlist: ['127.0.0.0/8'], outboundAllowHttp: true }),
      storage: fsStorage(process.env.DATA_DIR!),
      apiUrl: process.env.LINKEDIN_API_URL!,
    }),
  },
  credentialsKey: credentialsKey(process.env.CREDENTIALS_KEY!),
});
console.log('worker started');
