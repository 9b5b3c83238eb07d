// The /v1 REST folder: every route here takes a bearer credential, checked by one hook.
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import type { MediaDeps } from '../../core/assets/service.ts';
import type { RenderWaits } from '../../core/designs/service.ts';
import { type AuthContext, bearerAuthHook, confirmBearer, keyUnconfirmed } from '../auth.ts';
import { errorHandler } from '../errors.ts';
import { assetRoutes } from './assets.ts';
import { brandMemoryRoutes } from './brandMemory.ts';
import { designRoutes } from './designs.ts';
import { generateRoutes } from './generate.ts';
import { meRoutes } from './me.ts';
import { postRoutes } from './posts.ts';

export type RestDeps = {
  auth: AuthContext;
  media: MediaDeps;
  renders: RenderWaits;
  /** How long POST /v1/generate waits for its drafts. */
  generateTimeoutMs: number;
};

export const restRoutes: FastifyPluginAsync<RestDeps> = async (
  app,
  { auth, media, renders, generateTimeoutMs },
) => {
  app.addHook('onRequest', bearerAuthHook(auth));
  // A request admitted on a remembered key (auth.ts admitRememberedKey) answers no error
  // before that key is confirmed: a deleted key's 401 comes before a 422 or a 404.
  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    if (keyUnconfirmed(req)) {
      try {
        await confirmBearer(auth, req, reply);
      } catch (authErr) {
        return errorHandler(authErr as FastifyError, req, reply);
      }
    }
    return errorHandler(err, req, reply);
  });
  await app.register(meRoutes);
  const designs = { pool: auth.pool, publicBaseUrl: media.publicBaseUrl, renders };
  await app.register(postRoutes, { auth, designs });
  await app.register(designRoutes, { designs });
  await app.register(assetRoutes, { media });
  await app.register(brandMemoryRoutes, { pool: auth.pool });
  await app.register(generateRoutes, {
    generation: {
      pool: auth.pool,
      notifications: renders.notifications,
      timeoutMs: generateTimeoutMs,
    },
  });
};
