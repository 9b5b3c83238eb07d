// A worker process on the shipped connectors, as `npm run worker` runs the publication job,
// for a test that kills it mid-publication: the platforms are pointed at their stand-ins by
// the service's own variables (X_API_URL, THREADS_API_URL, ...) in its env. With
// PUBLIC_MEDIA=loopback the post's media is served by a loopback public media host (the
// shipped worker's public addresses are the service's own, under PUBLIC_BASE_URL).
// Env: DATABASE_URL, CREDENTIALS_KEY (base64), DATA_DIR, the platforms' variables.
import { credentialsKey } from '../../../core/connections/credentials.ts';
import { createPool } from '../../../core/db/pool.ts';
import { createLogger } from '../../../core/logger.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { platformApps } from '../../../core/platformApps.ts';
import { fsStorage } from '../../../core/storage/fs.ts';
import { startWorker } from '../../../workers/index.ts';
import { startPublicMediaHost } from '../publicMediaHost.ts';

const storage = fsStorage(process.env.DATA_DIR!);
await startWorker({
  pool: createPool(process.env.DATABASE_URL!, 4),
  concurrency: 1,
  pools: ['publish'],
  log: createLogger('silent'),
  outbound: outboundPolicy({ outboundAllowlist: ['127.0.0.0/8'], outboundAllowHttp: true }),
  storage,
  platformApps: platformApps(process.env),
  publicMedia:
    process.env.PUBLIC_MEDIA === 'loopback' ? await startPublicMediaHost(storage) : undefined,
  credentialsKey: credentialsKey(process.env.CREDENTIALS_KEY!),
});
console.log('worker started');
