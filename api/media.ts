// GET /media/{asset_id}?expires&sig: an asset's bytes for the holder of a signed, expiring
// address (no credential); GET /media/drawing-exports/{job_id}: a drawing export's file, and
// GET /media/video-frames/{job_id}/{index}: a video preview's poster frame, the same way. A
// wrong, expired or foreign signature answers 404 like a missing asset. Domain:
// core/assets/signedUrls.ts, core/drawings/exports.ts, core/designs/videoJobs.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type MediaDeps, readSignedAsset } from '../core/assets/service.ts';
import { readSignedVideoFrame } from '../core/designs/videoJobs.ts';
import { readSignedExport } from '../core/drawings/exports.ts';
import { ErrorBody } from './rest/schemas.ts';

export const signedMediaRoutes: FastifyPluginAsync<{ media: MediaDeps }> = async (
  base,
  { media },
) => {
  const signed = z.object({ expires: z.coerce.number().int(), sig: z.string().max(100) });
  base.withTypeProvider<ZodTypeProvider>().get(
    '/media/:asset_id',
    {
      schema: {
        summary: "An asset's bytes through a signed address (the asset's signed_url)",
        tags: ['media'],
        params: z.object({ asset_id: z.string() }),
        querystring: signed,
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

  base.withTypeProvider<ZodTypeProvider>().get(
    '/media/drawing-exports/:job_id',
    {
      schema: {
        summary: "A drawing export's file through its signed address (export_drawing's signed_url)",
        tags: ['media'],
        params: z.object({ job_id: z.string() }),
        querystring: signed,
        response: {
          200: z.any().describe('The PNG or SVG file.'),
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const { mime, stream } = await readSignedExport(
        media,
        req.params.job_id,
        req.query.expires,
        req.query.sig,
      );
      // An SVG opened from this address runs no script and loads nothing.
      return reply
        .type(mime)
        .header('cache-control', 'private, max-age=300')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        .header('x-content-type-options', 'nosniff')
        .send(stream);
    },
  );

  base.withTypeProvider<ZodTypeProvider>().get(
    '/media/video-frames/:job_id/:index',
    {
      schema: {
        summary:
          "A video design's poster frame through its signed address (preview_design's images[].url)",
        tags: ['media'],
        params: z.object({ job_id: z.string(), index: z.coerce.number().int().min(0).max(63) }),
        querystring: signed,
        response: {
          200: z.any().describe('The JPEG frame.'),
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const frame = await readSignedVideoFrame(
        media,
        req.params.job_id,
        req.params.index,
        req.query.expires,
        req.query.sig,
      );
      return reply.type('image/jpeg').header('cache-control', 'private, max-age=300').send(frame);
    },
  );
};
