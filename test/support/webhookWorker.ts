// A worker process serving the publish pool (webhook deliveries among it) over DATABASE_URL,
// as `bin/start.ts worker --pool publish` runs it, but with the liveness sweep shortened so a
// killed one's jobs are released about a second after its last heartbeat. Outbound requests
// follow OUTBOUND_* (a test lets them reach its receiver on loopback). SIGTERM stops it cleanly.
import { loadConfig } from '../../core/config.ts';
import { createPool } from '../../core/db/pool.ts';
import { createLogger } from '../../core/logger.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { startWorker } from '../../workers/index.ts';

const config = loadConfig();
const pool = createPool(config.databaseUrl!, 6);
const runner = await startWorker({
  pool,
  concurrency: Number(process.env.WORKER_CONCURRENCY ?? 4),
  pools: ['publish'],
  log: createLogger('silent'),
  outbound: outboundPolicy(config),
  liveness: { heartbeatMs: 200, staleAfterMs: 1000 },
});
process.once('SIGTERM', async () => {
  await runner.stop();
  await pool.end();
  process.exit(0);
});
console.log('worker started');
