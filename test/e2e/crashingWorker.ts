// A worker process whose Bluesky connector kills it (SIGKILL) right after the PDS took the
// record and before the outcome commits: the worst moment for a crash. Env: DATABASE_URL,
// DATA_DIR, CREDENTIALS_KEY, OUTBOUND_* (the service's own configuration).
import { loadConfig } from '../../core/config.ts';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { blueskyConnector } from '../../core/connectors/bluesky/index.ts';
import { createPool } from '../../core/db/pool.ts';
import { createLogger } from '../../core/logger.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { storageFor } from '../../core/storage/storage.ts';
import { startWorker } from '../../workers/index.ts';

const config = loadConfig(process.env);
const pool = createPool(process.env.DATABASE_URL!, 4);
const bluesky = blueskyConnector({ outbound: outboundPolicy(config), storage: storageFor(config) });
await startWorker({
  pool,
  concurrency: 1,
  log: createLogger('silent'),
  credentialsKey: credentialsKey(process.env.CREDENTIALS_KEY!),
  connectors: {
    bluesky: {
      async publish(req) {
        await bluesky.publish(req);
        process.kill(process.pid, 'SIGKILL');
        throw new Error('unreachable');
      },
    },
  },
});
