// A worker process on the shipped connectors, with Facebook pointed at a stand-in
// (FACEBOOK_API_URL, FACEBOOK_VIDEO_URL; FACEBOOK_CLIENT_ID, the app of its video uploads): the publication job as `npm run worker` runs it, for
// a test that kills it mid-publication. Env: DATABASE_URL, FACEBOOK_API_URL, FACEBOOK_CLIENT_ID, CREDENTIALS_KEY
// (base64), DATA_DIR.
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
  platformApps: platformApps({
    FACEBOOK_API_URL: process.env.FACEBOOK_API_URL,
    FACEBOOK_VIDEO_URL: process.env.FACEBOOK_API_URL,
    FACEBOOK_CLIENT_ID: process.env.FACEBOOK_CLIENT_ID,
  }),
  credentialsKey: credentialsKey(process.env.CREDENTIALS_KEY!),
});
console.log('worker started');
