// The /v1 REST folder: every route here takes a bearer credential, checked by one hook.
import type { FastifyPluginAsync } from 'fastify';
import { type AuthContext, bearerAuthHook } from '../auth.ts';
import { meRoutes } from './me.ts';
import { postRoutes } from './posts.ts';

export type RestDeps = { auth: AuthContext };

export const restRoutes: FastifyPluginAsync<RestDeps> = async (app, { auth }) => {
  app.addHook('onRequest', bearerAuthHook(auth));
  await app.register(meRoutes);
  await app.register(postRoutes, { pool: auth.pool });
};
