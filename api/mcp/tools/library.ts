// MCP tools for the media library: list_assets, upload_asset and delete_asset (same domain
// functions as REST).

import { Readable } from 'node:stream';
import { z } from 'zod';
import {
  AltText,
  Asset,
  AssetList,
  ListAssetsQuery,
  MAX_IMAGE_BYTES,
} from '../../../core/assets/schema.ts';
import {
  deleteAsset,
  ingestFromUrl,
  listAssets,
  uploadImage,
} from '../../../core/assets/service.ts';
import { IdInput } from '../../../core/kernel/ids.ts';
import { formatBytes } from '../../../core/kernel/sizes.ts';
import { summarisedInOutputs } from '../jsonSchema.ts';
import { DELETES, defineTool, READS } from '../registry.ts';

export const LIBRARY_TOOLS = [
  defineTool({
    name: 'list_assets',
    title: 'List library assets',
    description:
      'Images, videos and audio in the media library, newest first, with storage used and the quota. Page with cursor = next_cursor until it is null. Use this tool when you need to: find an asset id to attach to a post (audio cannot be attached).',
    input: ListAssetsQuery,
    output: AssetList,
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => listAssets(ctx.media, ctx.principal, args),
  }),
  defineTool({
    name: 'upload_asset',
    title: 'Upload an asset',
    description:
      'Adds an image or video to the media library from a public URL (a direct link to the file, not a page) or base64 image bytes (at most 15 MB); local videos go through the REST chunked upload. Use this tool when you need to: get an asset id to attach to a post.',
    input: z
      .object({
        url: z
          .string()
          .max(2_000)
          .optional()
          .describe('Public, directly downloadable image or video.'),
        data_base64: z
          .string()
          .max(
            Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 4,
            `an image of at most ${formatBytes(MAX_IMAGE_BYTES)}, base64-encoded`,
          )
          .optional()
          .describe('Image bytes, base64-encoded (JPEG, PNG, WebP, GIF or AVIF).'),
        filename: z.string().trim().max(255).optional(),
        brand_id: IdInput.optional().describe('Brand to file it under.'),
        alt_text: AltText.optional(),
      })
      .strict()
      .refine(
        (a) => (a.url === undefined) !== (a.data_base64 === undefined),
        'give exactly one of url or data_base64',
      ),
    output: summarisedInOutputs(Asset, 'The new asset, as list_assets answers each.'),
    scope: 'media',
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
    run: async (ctx, args) => {
      if (args.url)
        return ingestFromUrl(ctx.media, ctx.principal, {
          url: args.url,
          filename: args.filename,
          brand_id: args.brand_id,
          alt_text: args.alt_text,
        });
      const bytes = Buffer.from(args.data_base64 ?? '', 'base64');
      return uploadImage(ctx.media, ctx.principal, {
        body: Readable.from([bytes]),
        contentType: 'image/*',
        contentLength: bytes.length,
        filename: args.filename,
        brand_id: args.brand_id,
        alt_text: args.alt_text,
      });
    },
  }),
  defineTool({
    name: 'delete_asset',
    title: 'Delete an asset',
    description:
      'Deletes a library asset and its bytes, freeing its storage. Use this tool when you need to: remove media that must not be used again.',
    input: z.object({ asset_id: IdInput.describe('Asset id (from list_assets).') }).strict(),
    output: z.object({ deleted: z.literal(true), asset_id: z.string() }),
    scope: 'media',
    annotations: DELETES,
    run: async (ctx, { asset_id }) => {
      await deleteAsset(ctx.media, ctx.principal.accountId, asset_id);
      return { deleted: true as const, asset_id };
    },
  }),
];
