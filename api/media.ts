// GET /media/{asset_id}?expires&sig: an asset's bytes for the holder of a signed, expiring
// address (no credential); GET /media/drawing-exports/{job_id}: a drawing export's file, and
// GET /media/video-frames/{job_id}/{index}: a video preview's poster frame, the same way;
// GET /media/platform/{asset_id}: an asset for a platform that fetches media (a day-long
// address, with HEAD and a single Range, as platforms fetch large videos so). A wrong,
// expired or foreign signature answers 404 like a missing asset. Domain:
// core/assets/signedUrls.ts, core/drawings/exports.ts, core/video/previews.ts.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type MediaDeps, readPlatformMedia, readSignedAsset } from '../core/assets/service.ts';
import { readSignedExport } from '../core/drawings/service.ts';
import type { ByteRange } from '../core/storage/storage.ts';
import { readSignedVideoFrame } from '../core/video/service.ts';
import { ErrorBody } from './rest/schemas.ts';

/** Every signed file is cached privately for five minutes (the address itself expires). */
const SIGNED_FILE_CACHE = 'private, max-age=300';

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
        .headers({ 'cache-control': SIGNED_FILE_CACHE, ...route.headers })
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

  platformMediaRoute(base, media);
};

/**
 * The one range of `header` within `size` bytes: null when there is none to honour (absent,
 * several ranges, malformed: the whole body is sent, as RFC 9110 allows), 'unsatisfiable' when
 * it starts past the end.
 */
export function singleRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | null {
  const m = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    // The last N bytes.
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  return start >= size ? 'unsatisfiable' : { start, end };
}

/**
 * GET and HEAD /media/platform/{asset_id}: what a platform fetches (PublicMedia). No
 * credential; exactly that asset's bytes with their type and length, or one range of them.
 */
function platformMediaRoute(base: FastifyInstance, media: MediaDeps) {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const schema = {
    summary: 'An asset a platform fetches through its day-long signed address',
    tags: ['media'],
    params: z.object({ asset_id: z.string() }),
    querystring: Signature,
    headers: z.object({ range: z.string().optional() }),
    response: {
      200: z.any().describe('The bytes, with their media type and length.'),
      206: z.any().describe('The one range asked for (Range: bytes=start-end).'),
      404: ErrorBody,
      416: z.any().describe('The range starts past the end.'),
      422: ErrorBody,
    },
  };
  // Fastify's HEAD beside this GET runs the same handler, which then reads no bytes.
  app.route({
    method: 'GET',
    url: '/media/platform/:asset_id',
    schema,
    handler: async (req, reply) => {
      const { expires, sig } = req.query;
      const asset = await readPlatformMedia(media, req.params.asset_id, expires, sig);
      const range = singleRange(req.headers.range, asset.size);
      reply.type(asset.mime).headers({
        'cache-control': SIGNED_FILE_CACHE,
        'accept-ranges': 'bytes',
        'x-content-type-options': 'nosniff',
      });
      if (range === 'unsatisfiable')
        return reply
          .code(416)
          .headers({ 'content-range': `bytes */${asset.size}`, 'content-length': 0 })
          .send();
      if (range) {
        reply.code(206).headers({
          'content-range': `bytes ${range.start}-${range.end}/${asset.size}`,
          'content-length': range.end - range.start + 1,
        });
      } else reply.header('content-length', asset.size);
      // An empty stream: Fastify's HEAD then keeps our content-length (it sets 0 for no body).
      if (req.method === 'HEAD') return reply.send(Readable.from([]));
      return reply.send(await asset.open(range ?? undefined));
    },
  });
}
