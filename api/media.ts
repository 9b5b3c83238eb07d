// GET /media/{asset_id}?expires&sig: an asset's bytes for the holder of a signed, expiring
// address (no credential). A wrong, expired or foreign signature answers 404 like a missing
// asset. Domain: core/assets/signedUrls.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type MediaDeps, readSignedAsset } from '../core/assets/service.ts';
import { ErrorBody } from './rest/schemas.ts';

export const signedMediaRoutes: FastifyPluginAsync<{ media: MediaDeps }> = async (
  base,
  { media },
) => {
  base.withTypeProvider<ZodTypeProvider>().get(
    '/media/:asset_id',
    {
      schema: {
        summary: "An asset's bytes through a signed address (the asset's signed_url)",
        tags: ['media'],
        params: z.object({ asset_id: z.string() }),
        querystring: z.object({ expires: z.coerce.number().int(), sig: z.string().max(100) }),
        response: {
          200: z.any().describe('The bytes, with their media type.'),
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const { mime, stream } = await readSignedAsset(
        media,
        req.params.asset_id,
        req.query.expires,
        req.query.sig,
      );
      return reply.type(mime).header('cache-control', 'private, max-age=300').send(stream);
    },
  );
};
