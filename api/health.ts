// Liveness and readiness for orchestrators: /healthz answers while the process runs,
// /readyz only when the database answers and every migration of this build is applied.
import type { FastifyPluginAsync } from 'fastify';
import { appliedVersion, latestMigrationVersion } from '../core/db/migrate.ts';
import type { Pool } from '../core/db/pool.ts';

export const healthRoutes: FastifyPluginAsync<{ pool: Pool }> = async (app, { pool }) => {
  const expected = latestMigrationVersion();
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    try {
      const applied = await appliedVersion(pool);
      if (applied < expected) {
        return reply.code(503).send({
          detail: `migrations pending: at ${applied}, need ${expected}`,
          code: 'not_ready',
        });
      }
      return { status: 'ready', migration: applied };
    } catch {
      return reply.code(503).send({ detail: 'database unreachable', code: 'not_ready' });
    }
  });
};
