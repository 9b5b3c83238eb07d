// The /v1 REST folder: every route here takes a bearer credential, checked by one hook.
import type { FastifyPluginAsync } from 'fastify';
import type { Pool } from '../../core/db/pool.ts';
import { bearerAuthHook } from '../auth.ts';
import { meRoutes } from './me.ts';

export type RestDeps = { pool: Pool };

export const restRoutes: FastifyPluginAsync<RestDeps> = async (app, { pool }) => {
  app.addHook('onRequest', bearerAuthHook(pool));
  await app.register(meRoutes);
};
