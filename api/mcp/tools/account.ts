// MCP tools for account and routing: whoami, list_brands, list_accounts, get_usage.
import { z } from 'zod';
import { describeMe, MeOutput } from '../../../core/accounts/service.ts';
import { Brand, brandsOf, requireOwnedBrand } from '../../../core/brands/service.ts';
import { PlatformState } from '../../../core/connections/schema.ts';
import { ConnectedAccount, listAccountsAndPlatforms } from '../../../core/connections/service.ts';
import { IdInput } from '../../../core/kernel/ids.ts';
import { describeUsage, Usage } from '../../../core/usage/service.ts';
import { defineTool, READS } from '../registry.ts';

const NoArguments = z.object({}).strict();

export const ACCOUNT_TOOLS = [
  defineTool({
    name: 'whoami',
    title: 'Who am I',
    description:
      'The account behind this credential: e-mail, effective plan and the scopes this key holds. Use this tool when you need to: check which account you act for, or which tools your scopes allow, before doing anything else.',
    input: NoArguments,
    output: MeOutput,
    annotations: READS,
    run: async (ctx) => describeMe(ctx.principal),
  }),

  defineTool({
    name: 'list_brands',
    title: 'List brands',
    description:
      "The account's brands: id (the brand_id other tools take), uuid (create_design takes it), and which one is selected (the default wherever brand_id is omitted). Use this tool when you need to: pick the brand to post for.",
    input: NoArguments,
    output: z.object({ brands: z.array(Brand.extend({ selected: z.boolean() })) }),
    scope: 'read',
    annotations: READS,
    run: async (ctx) => ({
      brands: (await brandsOf(ctx.pool, ctx.principal.accountId)).map((b) => ({
        ...b,
        selected: b.id === ctx.principal.selectedBrandId,
      })),
    }),
  }),

  defineTool({
    name: 'list_accounts',
    title: 'List connected accounts',
    description:
      'The social accounts connected per brand (one per platform), with their health: `needs_reconnect` means posts to it will fail until the operator reconnects it; `platforms`: the state of every platform. Use this tool when you need to: know which platforms a brand can publish to before scheduling.',
    input: z
      .object({ brand_id: IdInput.optional().describe('Only this brand. Omitted: every brand.') })
      .strict(),
    output: z.object({
      accounts: z.array(ConnectedAccount),
      platforms: z.array(PlatformState),
    }),
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => {
      if (args.brand_id) await requireOwnedBrand(ctx.pool, ctx.principal.accountId, args.brand_id);
      return listAccountsAndPlatforms(
        ctx.pool,
        { platformApps: ctx.platformApps, publicBaseUrl: ctx.media.publicBaseUrl },
        ctx.oauthApps,
        ctx.principal.accountId,
        args.brand_id,
      );
    },
  }),

  defineTool({
    name: 'get_usage',
    title: 'Get usage',
    description:
      'Plan, request budget used and left this minute (shared with REST and GraphQL), media storage used, credits, and post counts by status. Use this tool when you need to: pace a batch of calls or check remaining credits.',
    input: NoArguments,
    output: Usage,
    scope: 'read',
    annotations: { ...READS, idempotentHint: false },
    run: async (ctx) => describeUsage(ctx.pool, ctx.principal, ctx.budget),
  }),
];
