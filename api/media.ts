// GET /media/{asset_id}?expires&sig: an asset's bytes for the holder of a signed, expiring
// address (no credential); GET /media/drawing-exports/{job_id}: a drawing export's file, and
// GET /media/video-frames/{job_id}/{index}: a video preview's poster frame, the same way. A
// wrong, expired or foreign signature answers 404 like a missing asset. Domain:
// core/assets/signedUrls.ts, core/drawings/exports.ts, core/video/previews.ts.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type MediaDeps, readSignedAsset } from '../core/assets/service.ts';
import { readSignedExport } from '../core/drawings/service.ts';
import { readSignedVideoFrame } from '../core/video/service.ts';
import { ErrorBody } from './rest/schemas.ts';

const Signature = z.object({ expires: z.coerce.number().int(), sig: z.string().max(100) });

/** One signed-address route: its path parameters, what its 200 holds, and how it reads them. */
type SignedFile<P extends z.ZodTypeAny> = {
  path: string;
  summary: string;
  params: P;
  /** The 200's description in the OpenAPI document. */
  holds: string;
  read: (
    params: z.infer<P>,
    signature: z.infer<typeof Signature>,
  ) => Promise<{ mime: string; body: Readable | Buffer }>;
  /** Headers beyond the private five-minute cache every signed file gets. */
  headers?: Record<string, string>;
};

/**
 * Registers a GET that answers a signed address with the file it names: no credential, the
 * signature in the query, a wrong or expired one the domain's 404, and a private cache of five
 * minutes (the address itself expires).
 */
function signedFileRoute<P extends z.ZodTypeAny>(app: FastifyInstance, route: SignedFile<P>) {
  app.withTypeProvider<ZodTypeProvider>().get(
    route.path,
    {
      schema: {
        summary: route.summary,
        tags: ['media'],
        params: route.params,
        querystring: Signature,
        response: { 200: z.any().describe(route.holds), 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (req, reply) => {
      const { mime, body } = await route.read(req.params as z.infer<P>, req.query);
      return reply
        .type(mime)
        .headers({ 'cache-control': 'private, max-age=300', ...route.headers })
        .send(body);
    },
  );
}

export const signedMediaRoutes: FastifyPluginAsync<{ media: MediaDeps }> = async (
  base,
  { media },
) => {
  signedFileRoute(base, {
    path: '/media/:asset_id',
    summary: "An asset's bytes through a signed address (the asset's signed_url)",
    params: z.object({ asset_id: z.string() }),
    holds: 'The bytes, with their media type.',
    read: async ({ asset_id }, { expires, sig }) => {
      const { mime, stream } = await readSignedAsset(media, asset_id, expires, sig);
      return { mime, body: stream };
    },
  });

  signedFileRoute(base, {
    path: '/media/drawing-exports/:job_id',
    summary: "A drawing export's file through its signed address (export_drawing's signed_url)",
    params: z.object({ job_id: z.string() }),
    holds: 'The PNG or SVG file.',
    read: async ({ job_id }, { expires, sig }) => {
      const { mime, stream } = await readSignedExport(media, job_id, expires, sig);
      return { mime, body: stream };
    },
    // An SVG opened from this address runs no script and loads nothing.
    headers: {
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'x-content-type-options': 'nosniff',
    },
  });

  signedFileRoute(base, {
    path: '/media/video-frames/:job_id/:index',
    summary:
      "A video design's poster frame through its signed address (preview_design's images[].url)",
    params: z.object({ job_id: z.string(), index: z.coerce.number().int().min(0).max(63) }),
    holds: 'The JPEG frame.',
    read: async ({ job_id, index }, { expires, sig }) => ({
      mime: 'image/jpeg',
      body: await readSignedVideoFrame(media, job_id, index, expires, sig),
    }),
  });
};
