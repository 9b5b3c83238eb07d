// Liveness and readiness for orchestrators: /healthz answers while the process runs,
// /readyz only when the database answers, every migration of this build is applied, and the
// local disk the media goes through can take writes (core/storage/space.ts).
import type { FastifyPluginAsync } from 'fastify';
import { appliedVersion, latestMigrationVersion } from '../core/db/migrate.ts';
import type { Pool } from '../core/db/pool.ts';
import type { ErrorCode } from '../core/kernel/errors.ts';
import { storageTrouble } from '../core/storage/space.ts';

const NOT_READY = 'not_ready' satisfies ErrorCode;

export const healthRoutes: FastifyPluginAsync<{
  pool: Pool;
  /** The local directories uploads are spooled and stored in. */
  storageDirs: string[];
}> = async (app, { pool, storageDirs }) => {
  const expected = latestMigrationVersion();
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    let applied: number;
    try {
      applied = await appliedVersion(pool);
    } catch {
      return reply.code(503).send({ detail: 'database unreachable', code: NOT_READY });
    }
    if (applied < expected) {
      return reply.code(503).send({
        detail: `migrations pending: at ${applied}, need ${expected}`,
        code: NOT_READY,
      });
    }
    let storage: string | undefined;
    try {
      storage = await storageTrouble(storageDirs);
    } catch {
      return reply.code(503).send({
        detail: 'storage unreadable: the room left on the media volume cannot be read',
        code: NOT_READY,
        reason: 'storage_unavailable',
      });
    }
    if (storage)
      return reply.code(503).send({ detail: storage, code: NOT_READY, reason: 'storage_full' });
    return { status: 'ready', migration: applied };
  });
};
