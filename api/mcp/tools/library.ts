// MCP tools for the media library: list_assets and delete_asset (same domain as REST).
import { z } from 'zod';
import { AssetList, ListAssetsQuery } from '../../../core/assets/schema.ts';
import { deleteAsset, listAssets } from '../../../core/assets/service.ts';
import { IdInput } from '../../../core/ids.ts';
import { defineTool } from '../registry.ts';

export const LIBRARY_TOOLS = [
  defineTool({
    name: 'list_assets',
    title: 'List library assets',
    description:
      'Images, videos and audio in the media library, newest first, with storage used and the quota. Page with cursor = next_cursor until it is null. Use this tool when you need to: find an asset id to attach to a post (audio cannot be attached).',
    input: ListAssetsQuery,
    output: AssetList,
    scope: 'read',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: async (ctx, args) => listAssets(ctx.media, ctx.principal, args),
  }),
  defineTool({
    name: 'delete_asset',
    title: 'Delete an asset',
    description:
      'Deletes a library asset and its bytes, freeing its storage. Use this tool when you need to: remove media that must not be used again.',
    input: z.object({ asset_id: IdInput.describe('Asset id (from list_assets).') }).strict(),
    output: z.object({ deleted: z.literal(true), asset_id: z.string() }),
    scope: 'media',
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
    run: async (ctx, { asset_id }) => {
      await deleteAsset(ctx.media, ctx.principal.accountId, asset_id);
      return { deleted: true as const, asset_id };
    },
  }),
];
