// Every id an operation takes is checked before it writes: an id that names no row answers
// exactly as another account's does (REST and the dashboard 404 {"detail"}, MCP the same
// isError not_found result, GraphQL the same error), and neither writes anything. One case per
// operation and id it takes, on every surface; each case sends a missing id and a stranger's.
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../api/mcp/registry.ts';
import { setBudget, setFeature } from '../../core/accounts/service.ts';
import type { Pool } from '../../core/db/pool.ts';
import { createLogger } from '../../core/logger.ts';
import {
  type EveryKind,
  fingerprint,
  type IdKind,
  MISSING,
  rowsOfEveryKind,
} from '../support/everyKind.ts';
import { logSink } from '../support/logs.ts';
import { call, makeAccount, makeKey, signedInDashboard } from '../support/server.ts';
import { useServer } from '../support/service.ts';

// What the server logs: a foreign key's refusal (SQLSTATE 23503) is answered as not_found by a
// safety net, and logged; here none may happen, as every id is checked before any write.
const logged: string[] = [];

/**
 * A write that trusts a foreign key to refuse a missing brand, as a route and as a tool, for
 * the safety net's test: the check an operation should have made is left out on purpose.
 */
const uncheckedInsert = (pool: Pool) =>
  pool.query(
    `insert into designs (account_id, brand_id, layout)
     select id, $1, '{}' from accounts order by id limit 1`,
    [MISSING.brand],
  );
const uncheckedTool = defineTool({
  name: 'unchecked_insert',
  title: 'Unchecked insert',
  description: 'Test only: an insert with a brand id nobody checked.',
  input: z.object({}).strict(),
  output: z.object({}),
  annotations: { readOnlyHint: false },
  run: async (ctx) => {
    await uncheckedInsert(ctx.pool);
    return {};
  },
});

const server = useServer({
  logger: createLogger(
    'info',
    logSink((line) => logged.push(line)),
  ),
  mcp: { extraTools: [uncheckedTool] },
  extend: async (app, pool) => {
    app.post('/test/unchecked-insert', async () => {
      await uncheckedInsert(pool);
      return {};
    });
  },
});

/** What a surface answered to one case sent with one id. */
type Answer = { status: number; body: unknown };
type Send = (id: string) => Promise<Answer>;

let key: string;
let mine: EveryKind;
let theirs: EveryKind;
let dashboard: Awaited<ReturnType<typeof signedInDashboard>>;
/** The dashboard account's own rows. */
let ours: EveryKind;
let png: string;

beforeAll(async () => {
  const a = await makeAccount(server.pool, 'business');
  await setBudget(server.pool, a.accountId, 1_000_000);
  for (const f of ['video_templates', 'engagement_inbox', 'agent_tasks'] as const)
    await setFeature(server.pool, a.accountId, f, true);
  key = await makeKey(server.pool, a.accountId, ['read', 'publish', 'media', 'generate', 'engage']);
  mine = await rowsOfEveryKind(server.pool, a);
  theirs = await rowsOfEveryKind(server.pool, await makeAccount(server.pool, 'business'));
  // The dashboard's account is another one: ids of `mine` are strangers' to it as well.
  dashboard = await signedInDashboard(server, 'business');
  await setBudget(server.pool, dashboard.acct.accountId, 1_000_000);
  ours = await rowsOfEveryKind(server.pool, dashboard.acct);
  png = (
    await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
      .png()
      .toBuffer()
  ).toString('base64');
});

const FUTURE = '2031-01-01T09:00:00Z';

const rest =
  (method: string, path: (id: string) => string, body?: (id: string) => unknown): Send =>
  async (id) => {
    const res = await call(server, method, path(id), { key, body: body?.(id) });
    return { status: res.status, body: res.body };
  };

const mcp =
  (name: string, args: (id: string) => Record<string, unknown>): Send =>
  async (id) => {
    const res = await call(server, 'POST', '/mcp', {
      key,
      headers: { accept: 'application/json' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args(id) } },
    });
    return { status: res.status, body: res.body?.result ?? res.body?.error ?? res.body };
  };

const graphql =
  (query: string, variables: (id: string) => unknown): Send =>
  async (id) => {
    const res = await call(server, 'POST', '/graphql', {
      key,
      body: { query, variables: variables(id) },
    });
    return { status: res.status, body: res.body };
  };

const app =
  (method: string, path: (id: string) => string, body?: (id: string) => unknown): Send =>
  async (id) => {
    const res = await call(server, method, path(id), {
      headers: dashboard.headers,
      body: body?.(id),
    });
    return { status: res.status, body: res.body };
  };

/**
 * An operation and the id it takes. An id inside a document or a list (a layout's layer, a
 * template's slot, draft_week's sources) is refused by a 422 naming its place, of type
 * not_found: `in_document`.
 */
type Case = [name: string, kind: IdKind, send: Send, in_document?: 'in_document'];

const image = (asset_id: string) => ({ kind: 'image', asset_id, x: 0, y: 0, w: 100, h: 100 });
const drawingLayer = (drawing_id: string) => ({
  kind: 'drawing',
  drawing_id,
  x: 0,
  y: 0,
  w: 100,
  h: 100,
});
const videoTemplate = {
  template: 'photo-quote-story',
  platform: 'mastodon',
  texts: { quote: 'Hi' },
};

const MCP_CASES: Case[] = [
  ['list_accounts brand_id', 'brand', mcp('list_accounts', (id) => ({ brand_id: id }))],
  ['list_posts brand_id', 'brand', mcp('list_posts', (id) => ({ brand_id: id }))],
  ['get_post post_id', 'post', mcp('get_post', (id) => ({ post_id: id }))],
  ['get_queue_summary brand_id', 'brand', mcp('get_queue_summary', (id) => ({ brand_id: id }))],
  [
    'create_post brand_id',
    'brand',
    mcp('create_post', (id) => ({ platform: 'mastodon', body: 'Hi', brand_id: id })),
  ],
  [
    'create_post asset_ids',
    'image',
    mcp('create_post', (id) => ({ platform: 'mastodon', body: 'Hi', asset_ids: [id] })),
  ],
  ['update_post post_id', 'post', mcp('update_post', (id) => ({ post_id: id, body: 'New' }))],
  [
    'update_post asset_ids',
    'image',
    mcp('update_post', (id) => ({ post_id: mine.post, asset_ids: [id] })),
  ],
  ...(['approve_post', 'reject_post', 'favorite_post', 'unfavorite_post', 'unschedule_post'].map(
    (name) => [`${name} post_id`, 'post', mcp(name, (id) => ({ post_id: id }))],
  ) as Case[]),
  [
    'schedule_post post_id at a time',
    'post',
    mcp('schedule_post', (id) => ({ post_id: id, when: FUTURE })),
  ],
  ['schedule_post post_id at a slot', 'post', mcp('schedule_post', (id) => ({ post_id: id }))],
  ['get_audit post_id', 'post', mcp('get_audit', (id) => ({ post_id: id }))],
  ['list_assets brand_id', 'brand', mcp('list_assets', (id) => ({ brand_id: id }))],
  [
    'upload_asset brand_id',
    'brand',
    mcp('upload_asset', (id) => ({ data_base64: png, filename: 'a.png', brand_id: id })),
  ],
  ['delete_asset asset_id', 'image', mcp('delete_asset', (id) => ({ asset_id: id }))],
  ['get_layers post_id', 'post', mcp('get_layers', (id) => ({ post_id: id }))],
  ['get_layers design_id', 'design', mcp('get_layers', (id) => ({ design_id: id }))],
  ['create_design brand_uuid', 'brandUuid', mcp('create_design', (id) => ({ brand_uuid: id }))],
  [
    'create_design slot asset_id',
    'image',
    mcp('create_design', (id) => ({
      brand_uuid: mine.brandUuid,
      template: 'launch-photo-split',
      slots: { photo: { asset_id: id } },
    })),
    'in_document',
  ],
  [
    'design_post post_id',
    'post',
    mcp('design_post', (id) => ({ post_id: id, layout_version: 1, layout: { layers: [] } })),
  ],
  [
    'design_post design_id',
    'design',
    mcp('design_post', (id) => ({ design_id: id, layout_version: 1, layout: { layers: [] } })),
  ],
  [
    'design_post layer asset_id',
    'image',
    mcp('design_post', (id) => ({
      design_id: mine.design,
      layout_version: 1,
      layout: { layers: [image(id)] },
    })),
    'in_document',
  ],
  [
    'design_post layer drawing_id',
    'drawing',
    mcp('design_post', (id) => ({
      design_id: mine.design,
      layout_version: 1,
      layout: { layers: [drawingLayer(id)] },
    })),
    'in_document',
  ],
  [
    'edit_layers post_id',
    'post',
    mcp('edit_layers', (id) => ({
      post_id: id,
      layout_version: 1,
      ops: [{ op: 'add', layer: { kind: 'text', text: 'Hi', x: 0, y: 0, w: 100 } }],
    })),
  ],
  [
    'edit_layers added asset_id',
    'image',
    mcp('edit_layers', (id) => ({
      design_id: mine.design,
      layout_version: 1,
      ops: [{ op: 'add', layer: image(id) }],
    })),
    'in_document',
  ],
  [
    'edit_layers added drawing_id',
    'drawing',
    mcp('edit_layers', (id) => ({
      design_id: mine.design,
      layout_version: 1,
      ops: [{ op: 'add', layer: drawingLayer(id) }],
    })),
    'in_document',
  ],
  ['preview_design post_id', 'post', mcp('preview_design', (id) => ({ post_id: id }))],
  ['preview_design design_id', 'design', mcp('preview_design', (id) => ({ design_id: id }))],
  ['list_drawings brand_id', 'brand', mcp('list_drawings', (id) => ({ brand_id: id }))],
  [
    'create_drawing brand_id',
    'brand',
    mcp('create_drawing', (id) => ({ brand_id: id, title: 'Arrow', width: 10, height: 10 })),
  ],
  ...(['get_drawing', 'delete_drawing', 'export_drawing', 'save_drawing_to_library'].map((name) => [
    `${name} drawing_id`,
    'drawing',
    mcp(name, (id) => ({ drawing_id: id })),
  ]) as Case[]),
  [
    'update_drawing drawing_id',
    'drawing',
    mcp('update_drawing', (id) => ({ drawing_id: id, expected_version: 1, title: 'New' })),
  ],
  [
    'attach_drawing_to_post drawing_id',
    'drawing',
    mcp('attach_drawing_to_post', (id) => ({ drawing_id: id, post_id: mine.post })),
  ],
  [
    'attach_drawing_to_post post_id',
    'post',
    mcp('attach_drawing_to_post', (id) => ({ drawing_id: mine.drawing, post_id: id })),
  ],
  ['get_analytics brand_id', 'brand', mcp('get_analytics', (id) => ({ brand_id: id }))],
  ['get_best_times brand_id', 'brand', mcp('get_best_times', (id) => ({ brand_id: id }))],
  [
    'list_trends brand_id',
    'brand',
    mcp('list_trends', (id) => ({ brand_id: id, platform: 'mastodon' })),
  ],
  [
    'use_video_template brand_id',
    'brand',
    mcp('use_video_template', (id) => ({ ...videoTemplate, brand_id: id })),
  ],
  [
    'use_video_template media',
    'image',
    mcp('use_video_template', (id) => ({ ...videoTemplate, media: { photo: id } })),
    'in_document',
  ],
  [
    'use_video_template audio_asset_id',
    'audio',
    mcp('use_video_template', (id) => ({ ...videoTemplate, audio_asset_id: id })),
    'in_document',
  ],
  ['export_video post_id', 'post', mcp('export_video', (id) => ({ post_id: id }))],
  ['export_video design_id', 'design', mcp('export_video', (id) => ({ design_id: id }))],
  ['job_status job_id', 'job', mcp('job_status', (id) => ({ job_id: id }))],
  ['get_brand_memory brand_id', 'brand', mcp('get_brand_memory', (id) => ({ brand_id: id }))],
  [
    'update_brand_memory brand_id',
    'brand',
    mcp('update_brand_memory', (id) => ({
      brand_id: id,
      expected_version: 1,
      ops: [{ op: 'add', path: '/voice', value: { persona: 'A baker' } }],
    })),
  ],
  ['import_history brand_id', 'brand', mcp('import_history', (id) => ({ brand_id: id }))],
  [
    'repurpose brand_id',
    'brand',
    mcp('repurpose', (id) => ({ text: 'We bake bread.', platforms: ['x'], brand_id: id })),
  ],
  [
    'repurpose source_id',
    'source',
    mcp('repurpose', (id) => ({ source_id: id, platforms: ['x'] })),
  ],
  [
    'draft_week brand_id',
    'brand',
    mcp('draft_week', (id) => ({ brand_id: id, themes: ['Bread'], platforms: ['x'] })),
  ],
  [
    'draft_week source_ids',
    'source',
    mcp('draft_week', (id) => ({ brand_id: mine.brand, source_ids: [id], platforms: ['x'] })),
    'in_document',
  ],
  [
    'list_reply_suggestions brand_id',
    'brand',
    mcp('list_reply_suggestions', (id) => ({ brand_id: id })),
  ],
  [
    'draft_replies suggestion_ids',
    'suggestion',
    mcp('draft_replies', (id) => ({ suggestion_ids: [id] })),
  ],
  [
    'post_reply suggestion_id',
    'suggestion',
    mcp('post_reply', (id) => ({ suggestion_id: id, text: 'Thanks!' })),
  ],
  [
    'dismiss_reply_suggestion suggestion_id',
    'suggestion',
    mcp('dismiss_reply_suggestion', (id) => ({ suggestion_id: id })),
  ],
  [
    'list_engagement_inbox brand_id',
    'brand',
    mcp('list_engagement_inbox', (id) => ({ brand_id: id })),
  ],
  [
    'approve_engagement_action action_id',
    'action',
    mcp('approve_engagement_action', (id) => ({ action_id: id })),
  ],
  [
    'dismiss_engagement_action action_id',
    'action',
    mcp('dismiss_engagement_action', (id) => ({ action_id: id })),
  ],
  [
    'create_agent_task brand_id',
    'brand',
    mcp('create_agent_task', (id) => ({ brand_id: id, kind: 'draft_week', goal: 'A week' })),
  ],
  ['list_agent_tasks brand_id', 'brand', mcp('list_agent_tasks', (id) => ({ brand_id: id }))],
  ['get_agent_task task_id', 'agentTask', mcp('get_agent_task', (id) => ({ task_id: id }))],
];

const REST_CASES: Case[] = [
  ['GET /v1/posts brand_id', 'brand', rest('GET', (id) => `/v1/posts?brand_id=${id}`)],
  [
    'POST /v1/posts brand_id',
    'brand',
    rest(
      'POST',
      () => '/v1/posts',
      (id) => ({ platform: 'mastodon', body: 'Hi', brand_id: id }),
    ),
  ],
  [
    'POST /v1/posts asset_ids',
    'image',
    rest(
      'POST',
      () => '/v1/posts',
      (id) => ({ platform: 'mastodon', body: 'Hi', asset_ids: [id] }),
    ),
  ],
  [
    'POST /v1/posts layout brand_id',
    'brand',
    rest(
      'POST',
      () => '/v1/posts',
      (id) => ({ platform: 'mastodon', body: 'Hi', brand_id: id, layout: { layers: [] } }),
    ),
  ],
  [
    'POST /v1/posts template brand_id',
    'brand',
    rest(
      'POST',
      () => '/v1/posts',
      (id) => ({ platform: 'mastodon', body: 'Hi', brand_id: id, template: 'launch-big-type' }),
    ),
  ],
  [
    'POST /v1/posts layout asset_id',
    'image',
    rest(
      'POST',
      () => '/v1/posts',
      (id) => ({
        platform: 'mastodon',
        body: 'Hi',
        brand_id: mine.brand,
        layout: { layers: [image(id)] },
      }),
    ),
    'in_document',
  ],
  [
    'POST /v1/posts design_id',
    'design',
    rest(
      'POST',
      () => '/v1/posts',
      (id) => ({ platform: 'mastodon', body: 'Hi', brand_id: mine.brand, design_id: id }),
    ),
  ],
  ['POST /v1/posts/:id/favorite', 'post', rest('POST', (id) => `/v1/posts/${id}/favorite`)],
  ['DELETE /v1/posts/:id/favorite', 'post', rest('DELETE', (id) => `/v1/posts/${id}/favorite`)],
  [
    'POST /v1/posts/:id/reject',
    'post',
    rest(
      'POST',
      (id) => `/v1/posts/${id}/reject`,
      () => ({}),
    ),
  ],
  [
    'PATCH /v1/posts/:id/design',
    'post',
    rest(
      'PATCH',
      (id) => `/v1/posts/${id}/design`,
      () => ({ layout: { layers: [] } }),
    ),
  ],
  [
    'PATCH /v1/posts/:id/design layer asset_id',
    'image',
    rest(
      'PATCH',
      () => `/v1/posts/${mine.post}/design`,
      (id) => ({ layout: { layers: [image(id)] } }),
    ),
    'in_document',
  ],
  ['GET /v1/assets brand_id', 'brand', rest('GET', (id) => `/v1/assets?brand_id=${id}`)],
  [
    'POST /v1/assets brand_id',
    'brand',
    rest(
      'POST',
      () => '/v1/assets',
      (id) => ({ url: 'https://127.0.0.1:9/a.png', brand_id: id }),
    ),
  ],
  [
    'POST /v1/assets/upload brand_id',
    'brand',
    async (id) => {
      const res = await fetch(`${server.baseUrl}/v1/assets/upload?brand_id=${id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' },
        body: Buffer.from(png, 'base64'),
      });
      return { status: res.status, body: await res.json() };
    },
  ],
  [
    'POST /v1/assets/upload/init brand_id',
    'brand',
    rest(
      'POST',
      () => '/v1/assets/upload/init',
      (id) => ({ filename: 'clip.mp4', size_bytes: 1_000, brand_id: id }),
    ),
  ],
  [
    'PUT /v1/assets/upload/part upload_id',
    'upload',
    async (id) => {
      const res = await fetch(`${server.baseUrl}/v1/assets/upload/part?upload_id=${id}&index=0`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(100),
      });
      return { status: res.status, body: await res.json() };
    },
  ],
  [
    'POST /v1/assets/upload/finish upload_id',
    'upload',
    rest(
      'POST',
      () => '/v1/assets/upload/finish',
      (id) => ({ upload_id: id, parts: 1 }),
    ),
  ],
  ['GET /v1/assets/:id/content', 'image', rest('GET', (id) => `/v1/assets/${id}/content`)],
  ['GET /v1/assets/:id/thumbnail', 'image', rest('GET', (id) => `/v1/assets/${id}/thumbnail`)],
  ['DELETE /v1/assets/:id', 'image', rest('DELETE', (id) => `/v1/assets/${id}`)],
  ['GET /v1/brand-memory', 'brand', rest('GET', (id) => `/v1/brand-memory?brand_id=${id}`)],
  [
    'PATCH /v1/brand-memory',
    'brand',
    rest(
      'PATCH',
      () => '/v1/brand-memory',
      (id) => ({
        brand_id: id,
        expected_version: 1,
        ops: [{ op: 'add', path: '/voice', value: { persona: 'A baker' } }],
      }),
    ),
  ],
  [
    'POST /v1/brand-memory/import',
    'brand',
    rest(
      'POST',
      () => '/v1/brand-memory/import',
      (id) => ({ brand_id: id }),
    ),
  ],
  [
    'POST /v1/brand-memory/genome',
    'brand',
    rest(
      'POST',
      () => '/v1/brand-memory/genome',
      (id) => ({ brand_id: id }),
    ),
  ],
];

const CREATE_POST =
  'mutation($input: CreatePostInput!) { createPost(input: $input) { id status } }';
const GRAPHQL_CASES: Case[] = [
  [
    'createPost brandId',
    'brand',
    graphql(CREATE_POST, (id) => ({ input: { platform: 'mastodon', body: 'Hi', brandId: id } })),
  ],
  [
    'createPost assetIds',
    'image',
    graphql(CREATE_POST, (id) => ({ input: { platform: 'mastodon', body: 'Hi', assetIds: [id] } })),
  ],
  [
    'posts brandId',
    'brand',
    graphql('query($b: ID) { posts(brandId: $b) { id } }', (id) => ({ b: id })),
  ],
];

/** The dashboard's routes, as its own account: `mine` and `theirs` are both strangers'. */
const SESSION_CASES: Case[] = [
  [
    'PUT /auth/session/brand',
    'brand',
    app(
      'PUT',
      () => '/auth/session/brand',
      (id) => ({ brand_id: id }),
    ),
  ],
  ['DELETE /apikeys/:id', 'apiKey', app('DELETE', (id) => `/apikeys/${id}`)],
  ['DELETE /webhooks/:id', 'webhook', app('DELETE', (id) => `/webhooks/${id}`)],
  ['GET /webhooks/:id/deliveries', 'webhook', app('GET', (id) => `/webhooks/${id}/deliveries`)],
  [
    'POST /webhooks/:id/deliveries/:delivery_id/replay',
    'delivery',
    app('POST', (id) => `/webhooks/${ours.webhook}/deliveries/${id}/replay`),
  ],
  [
    'POST /competitors brand_id',
    'brand',
    app(
      'POST',
      () => '/competitors',
      (id) => ({ brand_id: id, platform: 'mastodon', handle: '@rival@example.social' }),
    ),
  ],
  ['GET /competitors brand_id', 'brand', app('GET', (id) => `/competitors?brand_id=${id}`)],
  ['DELETE /competitors/:id', 'competitor', app('DELETE', (id) => `/competitors/${id}`)],
  ['GET /app/api/board', 'brand', app('GET', (id) => `/app/api/board?brand_id=${id}`)],
  ...(
    [
      ['POST', 'approve'],
      ['POST', 'reject'],
      ['POST', 'favorite'],
      ['DELETE', 'favorite'],
      ['POST', 'schedule'],
    ] as const
  ).map(
    ([method, what]): Case => [
      `${method} /app/api/posts/:id/${what}`,
      'post',
      app(
        method,
        (id) => `/app/api/posts/${id}/${what}`,
        () => ({}),
      ),
    ],
  ),
  ['GET /app/api/posts/:id', 'post', app('GET', (id) => `/app/api/posts/${id}`)],
  [
    'POST /app/api/posts brand_id',
    'brand',
    app(
      'POST',
      () => '/app/api/posts',
      (id) => ({ platform: 'mastodon', body: 'Hi', brand_id: id }),
    ),
  ],
  [
    'POST /app/api/compose brand_id',
    'brand',
    app(
      'POST',
      () => '/app/api/compose',
      (id) => ({ platforms: ['mastodon'], body: 'Hi', brand_id: id }),
    ),
  ],
  [
    'POST /app/api/compose asset_ids',
    'image',
    app(
      'POST',
      () => '/app/api/compose',
      (id) => ({ platforms: ['mastodon'], body: 'Hi', asset_ids: [id] }),
    ),
  ],
  [
    'GET /app/api/calendar',
    'brand',
    app(
      'GET',
      (id) => `/app/api/calendar?brand_id=${id}&from=2031-01-01T00:00:00Z&to=2031-01-08T00:00:00Z`,
    ),
  ],
  [
    'PUT /app/api/session/brand',
    'brand',
    app(
      'PUT',
      () => '/app/api/session/brand',
      (id) => ({ brand_id: id }),
    ),
  ],
  ['GET /app/api/accounts', 'brand', app('GET', (id) => `/app/api/accounts?brand_id=${id}`)],
  [
    'GET /app/api/accounts/:id/pages',
    'connection',
    app('GET', (id) => `/app/api/accounts/${id}/pages`),
  ],
  [
    'PUT /app/api/accounts/:id/page',
    'connection',
    app(
      'PUT',
      (id) => `/app/api/accounts/${id}/page`,
      () => ({ page_id: '101000000000002' }),
    ),
  ],
  [
    'POST /app/api/accounts',
    'brand',
    app(
      'POST',
      () => '/app/api/accounts',
      (id) => ({
        platform: 'mastodon',
        brand_id: id,
        config: { instance: 'https://127.0.0.1:9', access_token: 'token' },
      }),
    ),
  ],
  [
    'DELETE /app/api/oauth/clients/:id',
    'grant',
    app('DELETE', (id) => `/app/api/oauth/clients/${id}`),
  ],
  ['GET /app/api/analytics', 'brand', app('GET', (id) => `/app/api/analytics?brand_id=${id}`)],
  ['GET /app/api/designs', 'brand', app('GET', (id) => `/app/api/designs?brand_id=${id}`)],
  [
    'POST /app/api/designs brand_uuid',
    'brandUuid',
    app(
      'POST',
      () => '/app/api/designs',
      (id) => ({ brand_uuid: id }),
    ),
  ],
  ['GET /app/api/designs/:id', 'design', app('GET', (id) => `/app/api/designs/${id}`)],
  [
    'POST /app/api/designs/:id/layers',
    'design',
    app(
      'POST',
      (id) => `/app/api/designs/${id}/layers`,
      () => ({ layout_version: 1, ops: [{ op: 'delete', index: 0 }] }),
    ),
  ],
  [
    'POST /app/api/designs/:id/preview',
    'design',
    app(
      'POST',
      (id) => `/app/api/designs/${id}/preview`,
      () => ({}),
    ),
  ],
  [
    'POST /app/api/designs/:id/export',
    'design',
    app('POST', (id) => `/app/api/designs/${id}/export`),
  ],
  [
    'POST /app/api/video-designs brand_id',
    'brand',
    app(
      'POST',
      () => '/app/api/video-designs',
      (id) => ({ ...videoTemplate, brand_id: id }),
    ),
  ],
  ['GET /app/api/drawings', 'brand', app('GET', (id) => `/app/api/drawings?brand_id=${id}`)],
  [
    'POST /app/api/drawings brand_id',
    'brand',
    app(
      'POST',
      () => '/app/api/drawings',
      (id) => ({ brand_id: id, title: 'A', width: 9, height: 9 }),
    ),
  ],
  ['GET /app/api/drawings/:id', 'drawing', app('GET', (id) => `/app/api/drawings/${id}`)],
  [
    'PATCH /app/api/drawings/:id',
    'drawing',
    app(
      'PATCH',
      (id) => `/app/api/drawings/${id}`,
      () => ({ expected_version: 1, title: 'B' }),
    ),
  ],
  ['DELETE /app/api/drawings/:id', 'drawing', app('DELETE', (id) => `/app/api/drawings/${id}`)],
  ['GET /app/api/assets brand_id', 'brand', app('GET', (id) => `/app/api/assets?brand_id=${id}`)],
  ['DELETE /app/api/assets/:id', 'image', app('DELETE', (id) => `/app/api/assets/${id}`)],
];

/** What the answer says with the id it was given written as <id>: comparable across ids. */
const normalised = (answer: Answer, id: string) =>
  JSON.parse(
    JSON.stringify(answer).replace(new RegExp(`(?<![0-9a-f-])${id}(?![0-9a-f-])`, 'g'), '<id>'),
  ) as Answer;

/** Whether the answer is this surface's "not found". */
function saysNotFound(surface: string, { status, body }: Answer, inDocument: boolean): boolean {
  const b = body as any;
  if (inDocument && surface === 'MCP')
    return b?.isError === true && /^validation_failed: .* of yours/.test(b.content?.[0]?.text);
  if (inDocument)
    return status === 422 && b?.detail?.length === 1 && b.detail[0].type === 'not_found';
  if (surface === 'MCP')
    return status === 200 && b?.isError === true && /^not_found: /.test(b.content?.[0]?.text);
  if (surface === 'GraphQL') return b?.errors?.[0]?.extensions?.code === 'not_found';
  return status === 404 && typeof b?.detail === 'string';
}

/**
 * Runs each case with a missing id and with a stranger's: equal answers, not found, and the
 * database as it was. The cases read the fixtures only when they send.
 */
function describeSurface(surface: string, cases: Case[]) {
  describe(`${surface}: a missing id answers as a stranger's, and nothing is written`, () => {
    it.each(cases)('%s', async (_name, kind, send, inDocument) => {
      const before = await fingerprint(server.pool);
      logged.length = 0;
      const missing = normalised(await send(MISSING[kind]), MISSING[kind]);
      const foreign = normalised(await send(theirs[kind]), theirs[kind]);
      expect(await fingerprint(server.pool)).toEqual(before);
      expect(logged.filter((line) => line.includes('"23503"'))).toEqual([]);
      expect(missing, JSON.stringify(missing)).toEqual(foreign);
      expect(saysNotFound(surface, missing, Boolean(inDocument)), JSON.stringify(missing)).toBe(
        true,
      );
    });
  });
}

describeSurface('MCP', MCP_CASES);
describeSurface('REST', REST_CASES);
describeSurface('GraphQL', GRAPHQL_CASES);
describeSurface('Dashboard', SESSION_CASES);

describe('a foreign key that refuses a write (a check left out)', () => {
  const missedCheck = () => logged.filter((line) => line.includes('"23503"'));

  it('answers not_found on REST and MCP, not 500 or -32603, and is logged as a missed check', async () => {
    logged.length = 0;
    const res = await call(server, 'POST', '/test/unchecked-insert');
    expect([res.status, res.body]).toEqual([
      404,
      { detail: 'Brand not found.', code: 'not_found' },
    ]);
    expect(missedCheck()).toHaveLength(1);

    const tool = await mcp('unchecked_insert', () => ({}))('');
    expect(tool.body).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'not_found: Brand not found.' }],
      _meta: { code: 'not_found' },
    });
    expect(missedCheck()).toHaveLength(2);
  });
});
