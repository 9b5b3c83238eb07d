// A worker process on the shipped connectors, with Instagram pointed at a stand-in
// (INSTAGRAM_API_URL) and the post's media served by a loopback public media host (the shipped
// worker's public addresses are the service's own): the publication job as `npm run worker`
// runs it, for a test that kills it mid-publication.
// Env: DATABASE_URL, INSTAGRAM_API_URL, CREDENTIALS_KEY (base64), DATA_DIR.
import { credentialsKey } from '../../../core/connections/credentials.ts';
import { builtinConnectors } from '../../../core/connectors/builtin.ts';
import { createPool } from '../../../core/db/pool.ts';
import { createLogger } from '../../../core/logger.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { platformApps } from '../../../core/platformApps.ts';
import { fsStorage } from '../../../core/storage/fs.ts';
import { startWorker } from '../../../workers/index.ts';
import { startPublicMediaHost } from '../publicMediaHost.ts';

const outbound = outboundPolicy({ outboundAllowlist: ['127.0.0.0/8'], outboundAllowHttp: true });
const storage = fsStorage(process.env.DATA_DIR!);
const apps = platformApps({ INSTAGRAM_API_URL: process.env.INSTAGRAM_API_URL });
await startWorker({
  pool: createPool(process.env.DATABASE_URL!, 4),
  concurrency: 1,
  pools: ['publish'],
  log: createLogger('silent'),
  outbound,
  storage,
  platformApps: apps,
  connectors: builtinConnectors({
    outbound,
    storage,
    platformApps: apps,
    publicMedia: await startPublicMediaHost(storage),
  }),
  credentialsKey: credentialsKey(process.env.CREDENTIALS_KEY!),
});
console.log('worker started');
