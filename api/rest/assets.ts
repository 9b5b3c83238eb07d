// /v1/assets (SPEC.md "REST: media"): listing, raw image upload, serving and deleting bytes.
// Domain: core/assets/service.ts, chunked.ts and ingest.ts.
import type { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  Asset,
  AssetList,
  FinishUploadInput,
  IngestInput,
  InitUploadInput,
  ListAssetsQuery,
  PartQuery,
  PartReceipt,
  UploadQuery,
  UploadSession,
} from '../../core/assets/schema.ts';
import {
  deleteAsset,
  finishUpload,
  ingestFromUrl,
  initUpload,
  listAssets,
  type MediaDeps,
  putPart,
  readAsset,
  readThumbnail,
  uploadImage,
} from '../../core/assets/service.ts';
import { DomainError } from '../../core/kernel/errors.ts';
import { principalOf } from '../auth.ts';
import { bearerErrors, bearerSecurity, ErrorBody, NoContent } from './schemas.ts';

const AssetParams = z.object({ asset_id: z.string().describe('Asset id.') });

/** The server's disk is full (core/storage/space.ts): nothing was stored or charged. */
const StorageFull = ErrorBody.describe(
  "storage_full: the server's disk is full; nothing was stored or counted against the quota",
);

const PART_BODY = "send the chunk's raw bytes with Content-Type: application/octet-stream.";

/** The raw body stream our parsers hand on; a JSON body, or none, is the wrong media type. */
function rawBody(body: unknown, hint: string): Readable {
  if (body && typeof (body as Readable).pipe === 'function') return body as Readable;
  throw new DomainError('unsupported_media_type', `Unsupported Content-Type; ${hint}`);
}

/**
 * The media routes; the dashboard registers them again under /app/api with the session as
 * the credential (`security` names it in the OpenAPI document).
 */
export const assetRoutes: FastifyPluginAsync<{
  media: MediaDeps;
  security?: Record<string, string[]>[];
}> = async (base, { media, security = bearerSecurity }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['media'], security };
  // Raw media bodies stay streams: the upload counts and spools them itself, with its cap.
  app.addContentTypeParser(/^(image|video|audio)\/[\w.+-]+$/i, (_req, payload, done) =>
    done(null, payload),
  );
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) =>
    done(null, payload),
  );

  app.get(
    '/assets',
    {
      config: { requires: { scope: 'read' } },
      schema: {
        ...common,
        summary: 'List library assets, newest first, with cursor paging and storage used',
        querystring: ListAssetsQuery,
        response: { 200: AssetList, 404: ErrorBody, 422: ErrorBody, ...bearerErrors },
      },
    },
    async (req) => listAssets(media, principalOf(req), req.query),
  );

  app.post(
    '/assets',
    {
      config: { requires: { scope: 'media' } },
      schema: {
        ...common,
        summary: 'Import a public image or video by URL (at most 3 redirects, each checked)',
        body: IngestInput,
        response: {
          201: Asset,
          404: ErrorBody,
          413: ErrorBody,
          422: ErrorBody,
          507: StorageFull,
          ...bearerErrors,
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await ingestFromUrl(media, principalOf(req), req.body)),
  );

  app.post(
    '/assets/upload',
    {
      config: {
        requires: { scope: 'media' },
        bodyMediaHint:
          "this route takes the raw image bytes as the body, with the image's own Content-Type (image/png, image/jpeg, image/webp, ...); videos go through /v1/assets/upload/init.",
      },
      schema: {
        ...common,
        summary: 'Upload raw image bytes (not multipart; at most 15 MB; video is refused)',
        querystring: UploadQuery,
        response: {
          201: Asset,
          404: ErrorBody,
          413: ErrorBody,
          415: ErrorBody,
          422: ErrorBody,
          507: StorageFull,
          ...bearerErrors,
        },
      },
    },
    async (req, reply) => {
      const length = req.headers['content-length'];
      const asset = await uploadImage(media, principalOf(req), {
        body: req.body as Readable,
        contentType: String(req.headers['content-type'] ?? ''),
        contentLength: length === undefined ? undefined : Number(length),
        ...req.query,
      });
      return reply.code(201).send(asset);
    },
  );

  app.post(
    '/assets/upload/init',
    {
      config: { requires: { scope: 'media' } },
      schema: {
        ...common,
        summary:
          'Start a chunked video upload: reserves size_bytes against the storage quota (413 beyond it) and answers upload_id and part_bytes (use them)',
        body: InitUploadInput,
        response: {
          200: UploadSession,
          404: ErrorBody,
          413: ErrorBody,
          422: ErrorBody,
          ...bearerErrors,
        },
      },
    },
    // 200, SPEC's default: init opens a session, it makes no resource a client fetches.
    async (req) => initUpload(media, principalOf(req), req.body),
  );

  app.put(
    '/assets/upload/part',
    {
      config: {
        requires: { scope: 'media' },
        bodyMediaHint: PART_BODY,
      },
      schema: {
        ...common,
        summary:
          'Send chunk `index` (application/octet-stream, part_bytes, the last one the rest); resending replaces it',
        querystring: PartQuery,
        response: {
          200: PartReceipt,
          404: ErrorBody,
          413: ErrorBody,
          422: ErrorBody,
          507: StorageFull,
          ...bearerErrors,
        },
      },
    },
    async (req) => {
      const length = req.headers['content-length'];
      return putPart(
        media,
        principalOf(req),
        req.query,
        rawBody(req.body, PART_BODY),
        length === undefined ? undefined : Number(length),
      );
    },
  );

  app.post(
    '/assets/upload/finish',
    {
      config: { requires: { scope: 'media' } },
      schema: {
        ...common,
        summary:
          'Join the chunks, probe the video and file it as an asset (409 while a finish runs)',
        body: FinishUploadInput,
        response: {
          201: Asset,
          404: ErrorBody,
          409: ErrorBody,
          413: ErrorBody,
          422: ErrorBody,
          507: StorageFull,
          ...bearerErrors,
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await finishUpload(media, principalOf(req), req.body)),
  );

  for (const [suffix, thumbnail] of [
    ['content', false],
    ['thumbnail', true],
  ] as const)
    app.get(
      `/assets/:asset_id/${suffix}`,
      {
        config: { requires: { scope: 'read' } },
        schema: {
          ...common,
          summary: thumbnail ? "An asset's thumbnail (WebP)" : "An asset's bytes",
          params: AssetParams,
          response: {
            200: z.any().describe('The bytes, with their media type.'),
            404: ErrorBody,
            ...bearerErrors,
          },
        },
      },
      async (req, reply) => {
        const read = thumbnail ? readThumbnail : readAsset;
        const { mime, stream } = await read(media, principalOf(req).accountId, req.params.asset_id);
        return reply.type(mime).header('cache-control', 'private, max-age=3600').send(stream);
      },
    );

  app.delete(
    '/assets/:asset_id',
    {
      config: { requires: { scope: 'media' } },
      schema: {
        ...common,
        summary: 'Delete an asset and its bytes (404 when not found for the account)',
        params: AssetParams,
        response: { 204: NoContent, 404: ErrorBody, ...bearerErrors },
      },
    },
    async (req, reply) => {
      await deleteAsset(media, principalOf(req).accountId, req.params.asset_id);
      return reply.code(204).send(null);
    },
  );
};
