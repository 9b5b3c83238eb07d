// Property-based fuzzing of every surface against a real server: every REST and session route
// (enumerated from the app), GraphQL's createPost and posts, and every MCP tool (from
// tools/list) plus the MCP methods themselves, with valid credentials and inputs shaped by their
// own schemas, each part sometimes hostile (NUL, lone surrogates, huge numbers, wrong types,
// deep nesting, malformed percent-encoding), and each id sometimes a stranger's: missing ids of
// every kind, another account's, out of range, UUIDs. Nothing may answer 5xx, nor MCP -32603,
// nor trip a foreign key (which the safety net would answer as not_found, and log).
// FUZZ_RUNS (default 50 per route or tool) and FUZZ_SEED (fixed by default) tune the runs.
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { DeclaredRoute } from '../../api/app.ts';
import { SHIPPED_TOOLS } from '../../api/mcp/index.ts';
import type { ToolDefinition } from '../../api/mcp/registry.ts';
import { setBudget, setFeature } from '../../core/accounts/service.ts';
import { TEMPLATES } from '../../core/designs/templates.ts';
import { CreateDrawingInput } from '../../core/drawings/schema.ts';
import { createDrawing } from '../../core/drawings/service.ts';
import { PLATFORMS } from '../../core/kernel/platforms.ts';
import { createLogger } from '../../core/logger.ts';
import {
  type FuzzContext,
  fuzzInput,
  fuzzParams,
  hostileString,
  hostileValue,
  mutated,
  pathSegment,
  queryString,
  someId,
  taint,
  toJson,
} from '../support/arbitraries.ts';
import { MISSING, rowsOfEveryKind } from '../support/everyKind.ts';
import { logSink } from '../support/logs.ts';
import { call, makeAccount, makeKey, makeSignedInAccount } from '../support/server.ts';
import { startService } from '../support/service.ts';
import { uploadPng } from '../support/uploads.ts';

// What the server logged of foreign keys that refused a write: each is an id an operation did
// not check before writing (answered not_found by the safety net, but a bug all the same).
const missedIdChecks: string[] = [];
// The routes and tools are enumerated from a running server, so it starts at collection.
const svc = await startService({
  worker: { storage: true },
  logger: createLogger(
    'info',
    logSink((line) => {
      if (line.includes('"23503"')) missedIdChecks.push(line);
    }),
  ),
});
const server = svc.server;
afterAll(() => svc.close());
// Each test reads only what its own requests logged (a failed one may leave lines behind).
beforeEach(() => {
  missedIdChecks.length = 0;
});

const acct = await makeAccount(server.pool, 'business');
// The fuzz sends thousands of requests a minute; the budget is not what it tests.
await setBudget(server.pool, acct.accountId, 10_000_000);
// The gated tools too go past their gate to what they do with the ids they are given.
for (const feature of ['video_templates', 'engagement_inbox', 'agent_tasks'] as const)
  await setFeature(server.pool, acct.accountId, feature, true);
const key = await makeKey(server.pool, acct.accountId, [
  'read',
  'publish',
  'media',
  'generate',
  'engage',
]);
// Session routes run as another account, so a fuzzed key deletion cannot lock the REST fuzz out.
const { acct: sessionAcct, cookie } = await makeSignedInAccount(server, 'plus');
await setBudget(server.pool, sessionAcct.accountId, 10_000_000); // the dashboard counts too
await makeKey(server.pool, sessionAcct.accountId);
// The dashboard's routes need our Origin and the session's CSRF token to reach their handlers.
const dashboardHeaders = {
  origin: new URL(server.config.publicBaseUrl).origin,
  'x-csrf-token': (await call(server, 'GET', '/app/api/session', { headers: { cookie } })).body
    .csrf_token as string,
};
const sessionKeyId = (
  await server.pool.query('select id::text from api_keys where account_id = $1', [
    sessionAcct.accountId,
  ])
).rows[0].id as string;

const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
  .png()
  .toBuffer();
const assetId = await uploadPng(server, key, { width: 32, height: 32 }, '#884422');
const draft = await call(server, 'POST', '/v1/posts', {
  key,
  body: { platform: 'linkedin', body: 'A draft' },
});
const designed = await call(server, 'POST', '/v1/posts', {
  key,
  body: {
    platform: 'bluesky',
    body: 'Designed',
    brand_id: acct.brandId,
    layout: { layers: [{ kind: 'text', text: 'Title', x: 10, y: 10, w: 400, cid: 't' }] },
  },
});
const drawing = await createDrawing(
  server.pool,
  {
    accountId: acct.accountId,
    selectedBrandId: acct.brandId,
    credential: { kind: 'api_key', id: '1' },
  } as never,
  CreateDrawingInput.parse({ title: 'Fuzzed', width: 100, height: 100 }),
);
const upload = await call(server, 'POST', '/v1/assets/upload/init', {
  key,
  body: { filename: 'clip.mp4', size_bytes: 1_000 },
});

// The dashboard's routes act as the session's account: a drawing of its own to find.
const sessionDrawing = await createDrawing(
  server.pool,
  {
    accountId: sessionAcct.accountId,
    selectedBrandId: sessionAcct.brandId,
    credential: { kind: 'session', id: '1' },
  } as never,
  CreateDrawingInput.parse({ title: 'Sketched', width: 100, height: 100 }),
);

// A third account's row of every kind: ids that exist, but not for either caller.
const stranger = await rowsOfEveryKind(server.pool, await makeAccount(server.pool, 'business'));

const ctx: FuzzContext = {
  ids: [
    sessionAcct.brandId,
    sessionDrawing.id,
    acct.brandId,
    draft.body.id,
    designed.body.id,
    designed.body.design_id,
    drawing.id,
    assetId,
    sessionKeyId,
  ],
  strings: [
    upload.body.upload_id,
    acct.brandUuid,
    png.toString('base64'),
    't',
    'Inter',
    ...[...TEMPLATES.keys()].slice(0, 2),
    ...PLATFORMS,
    'photo-quote-story',
    'clip-headline-square',
    // Ingest and webhook URLs stay on loopback: the guard refuses them without a lookup.
    'https://127.0.0.1:9/a.png',
  ],
  strangers: [
    ...Object.values(MISSING),
    ...Object.values(stranger),
    // Out of range: past bigint, bigint's largest (not an id we hand out), zero, negative.
    '9223372036854775808',
    '99999999999999999999',
    '9223372036854775807',
    '0',
    '-1',
    '00000000-0000-0000-0000-000000000000',
  ],
};

const layers = [
  { kind: 'text', text: 'Headline', x: 40, y: 40, w: 600, size: 64, cid: 't' },
  { kind: 'image', asset_id: assetId, x: 0, y: 300, w: 540, h: 540 },
  { kind: 'shape', shape: 'rect', x: 600, y: 600, w: 200, h: 100, fill: '#e4572e' },
  {
    kind: 'doodle',
    x: 100,
    y: 900,
    w: 300,
    strokes: [
      {
        points: [
          [0, 0],
          [80, 40, 0.5],
        ],
      },
    ],
  },
];
const memoryPatch = {
  expected_version: 1,
  ops: [
    { op: 'add', path: '/voice', value: { tone: ['warm'], persona: 'A baker' } },
    { op: 'add', path: '/hashtags', value: { always: ['#bread'] } },
    { op: 'test', path: '/voice/persona', value: 'A baker' },
    { op: 'move', from: '/voice/tone', path: '/voice/do' },
  ],
};
/** Inputs known to work (one, or a list), which the fuzz also mutates one part at a time. */
const EXAMPLES: Record<string, unknown> = {
  'POST /v1/posts': [
    { platform: 'linkedin', body: 'Launch day', hashtags: '#saas', asset_ids: [assetId] },
    {
      platform: 'bluesky',
      body: 'Launch day #saas',
      brand_id: acct.brandId,
      layout: { canvas: { aspect: 'portrait' }, layers },
    },
    {
      platform: 'bluesky',
      body: 'Launch day. Out now.',
      brand_id: acct.brandId,
      template: 'launch-photo-split',
      slots: { cta: 'Try it', photo: { asset_id: assetId, focus: { x: 0.5, y: 0.3 } } },
    },
  ],
  'PATCH /v1/posts/:post_id/design': [
    { layout: { pages: [{ layers }, { layers: [] }] } },
    { template: 'launch-big-type', slots: { date: 'June 12' } },
  ],
  create_design: {
    brand_uuid: acct.brandUuid,
    template: 'launch-photo-split',
    canvas: 'story',
    slots: { headline: 'Hi', logo: { asset_id: assetId } },
  },
  'POST /v1/posts/:post_id/reject': { reason: 'Off-brand', code: 'tone' },
  'PATCH /v1/brand-memory': memoryPatch,
  'POST /v1/generate': { text: 'We bake bread every morning at five, for forty cafés.' },
  'POST /v1/assets/upload/init': { filename: 'clip.mp4', size_bytes: 5_000_000 },
  'POST /v1/assets/upload/finish': { upload_id: upload.body.upload_id, parts: 1 },
  'PUT /auth/session/brand': { brand_id: sessionAcct.brandId },
  'POST /apikeys': { name: 'bot', scopes: ['read', 'publish'] },
  create_post: { platform: 'linkedin', body: 'Hello', hashtags: '#a', asset_ids: [assetId] },
  update_brand_memory: memoryPatch,
  repurpose: { text: 'We bake bread every morning.', platforms: ['x', 'linkedin'] },
  draft_week: { brand_id: acct.brandId, themes: ['Bread'], platforms: ['x'] },
  update_post: { post_id: draft.body.id, body: 'Changed', headline: 'Title' },
  design_post: { post_id: designed.body.id, layout_version: 1, layout: { layers } },
  edit_layers: {
    post_id: designed.body.id,
    layout_version: 1,
    ops: [
      { op: 'set', cid: 't', fields: { text: 'New', size: 80 } },
      { op: 'add', layer: layers[2] },
      { op: 'move', index: 0, to: 1 },
    ],
  },
  create_drawing: {
    brand_id: acct.brandId,
    title: 'Arrow',
    width: 200,
    height: 100,
    strokes: [
      {
        points: [
          [1, 2, 0.5],
          [150, 60],
        ],
        tool: 'highlighter',
      },
    ],
  },
  update_drawing: {
    drawing_id: drawing.id,
    expected_version: 1,
    add_strokes: [{ points: [[3, 4]] }],
  },
  export_drawing: [
    { drawing_id: drawing.id, format: 'svg', scale: 0.5 },
    { drawing_id: drawing.id, transparent: true, scale: 2 },
  ],
  save_drawing_to_library: { drawing_id: drawing.id },
  attach_drawing_to_post: { drawing_id: drawing.id, post_id: draft.body.id },
  upload_asset: { data_base64: png.toString('base64'), filename: 'a.png', alt_text: 'A square' },
  schedule_post: { post_id: draft.body.id, when: '2030-01-01T09:00:00Z' },
  use_video_template: {
    template: 'photo-quote-story',
    platform: 'mastodon',
    brand_id: acct.brandId,
    texts: { quote: 'Fresh bread at five' },
    media: { photo: assetId },
  },
  'POST /app/api/video-designs': {
    template: 'photo-quote-story',
    platform: 'mastodon',
    brand_id: sessionAcct.brandId,
    texts: { quote: 'Fresh bread at five' },
  },
};

/** The fuzzed input of a route or tool: shaped by its schema, or a mutated known-good one. */
const inputOf = (name: string, schema: unknown) => {
  const shapedInput = schema ? fuzzInput(schema as never, ctx) : hostileValue;
  return name in EXAMPLES
    ? fc.oneof(shapedInput, ...[EXAMPLES[name]].flat().map((example) => mutated(example, ctx)))
    : shapedInput;
};

type Sent = { status: number; text: string };

/** No foreign key refused a write since the last look (an id went unchecked before it). */
function noMissedIdCheck() {
  const lines = missedIdChecks.splice(0);
  expect(lines.map((l) => l.slice(0, 600))).toEqual([]);
}

async function send(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<Sent> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: init.headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : (init.body as BodyInit | undefined),
    redirect: 'manual',
  });
  return { status: res.status, text: await res.text() };
}

// ---------------------------------------------------------------------------------------------
// REST and session routes

const SESSION_PREFIXES = ['/auth', '/apikeys', '/webhooks', '/competitors', '/app/api'];
const isSession = (url: string) => SESSION_PREFIXES.some((p) => url.startsWith(p));

type Request = {
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
};

const zodShape = (schema: unknown) =>
  (schema as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def
    ?.shape as Record<string, never> | undefined;

const rawImageBody = fc.record({
  type: fc.constantFrom(
    'image/png',
    'image/jpeg',
    'application/octet-stream',
    'application/json',
    'text/plain',
    '',
  ),
  bytes: fc.oneof(
    fc.constant(undefined),
    fc.constant(new TextEncoder().encode('{"bytes":"AAAA"}')),
    fc.constant(new Uint8Array(png)),
    fc.integer({ min: 1, max: png.length - 1 }).map((n) => new Uint8Array(png.subarray(0, n))),
    fc.uint8Array({ maxLength: 2_000 }),
  ),
});

const jsonBody = (name: string, schema: unknown) =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: inputOf(name, schema).map((v) => {
        const text = toJson(v);
        // Nothing to send is sent as no body, without a content type.
        return { type: text === undefined ? '' : 'application/json', text };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          '',
        ),
        text: fc.oneof(
          hostileString,
          fc.constantFrom('{', '{"a":', '[1,]', '\u0000', '{"__proto__":{"x":1}}'),
        ),
      }),
    },
  );

function requestFor(route: DeclaredRoute, method: string): fc.Arbitrary<Request> {
  const name = `${method} ${route.url}`;
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const names = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const params = zodShape(schema.params) ?? {};
  const segments = fc.record(
    Object.fromEntries(
      names.map((n) => [
        n,
        // Mostly ids that exist, so the route goes on to its body.
        pathSegment(
          fc.oneof(
            { weight: 3, arbitrary: someId(ctx) },
            { weight: 2, arbitrary: params[n] ? fuzzInput(params[n], ctx) : hostileString },
          ),
        ),
      ]),
    ),
  );
  const wildcard = pathSegment(hostileString);
  const query = schema.querystring
    ? fuzzInput(schema.querystring as never, ctx).map((q) =>
        q && typeof q === 'object' && !Array.isArray(q)
          ? queryString(q as Record<string, unknown>)
          : queryString({ q }),
      )
    : fc.option(fc.dictionary(hostileString, hostileString, { maxKeys: 2 }).map(queryString), {
        nil: '',
      });
  const takesBody = !['GET', 'HEAD'].includes(method);
  const body = !takesBody
    ? fc.constant(undefined)
    : route.config?.bodyMediaHint
      ? rawImageBody.map(({ type, bytes }) => ({ type, text: bytes as string | Uint8Array }))
      : schema.body
        ? jsonBody(name, schema.body)
        : fc.option(jsonBody(name, undefined), { nil: undefined });
  return fc
    .record({ segments, wildcard, query, body })
    .map(({ segments, wildcard, query, body }) => {
      let path = route.url.replace(/:(\w+)/g, (_m, n: string) => segments[n] ?? '');
      path = path.replace('*', wildcard) + query;
      const headers: Record<string, string> = {};
      if (route.url.startsWith('/v1/')) headers.authorization = `Bearer ${key}`;
      if (isSession(route.url)) headers.cookie = cookie;
      if (route.url.startsWith('/app/api/')) Object.assign(headers, dashboardHeaders);
      if (body?.type) headers['content-type'] = body.type;
      return { path, headers, body: body?.text };
    });
}

const HIDDEN_BY_OWN_FUZZ = new Set(['POST /mcp', 'POST /graphql']);
/** DELETE routes late, and signing out last: each would take fixtures from those after it. */
const destructiveLast = (a: string, b: string) => {
  const late = (k: string) => (k.endsWith('/auth/logout') ? 2 : k.startsWith('DELETE') ? 1 : 0);
  return late(a) - late(b);
};

const routes = new Map<string, DeclaredRoute>();
for (const route of server.app.routes)
  for (const method of [route.method].flat())
    if (method !== 'HEAD' && !HIDDEN_BY_OWN_FUZZ.has(`${method} ${route.url}`))
      routes.set(`${method} ${route.url}`, route);
const routeKeys = [...routes.keys()].sort(destructiveLast);

describe('REST and session routes answer no 5xx', () => {
  it('covers the REST, session and media routes', () => {
    for (const must of [
      'POST /v1/posts',
      'PATCH /v1/posts/:post_id/design',
      'POST /v1/assets/upload',
      'POST /apikeys',
    ])
      expect(routeKeys).toContain(must);
  });

  it.each(routeKeys)(
    '%s',
    async (routeKey) => {
      const route = routes.get(routeKey)!;
      const method = routeKey.split(' ')[0]!;
      const hasInput =
        Boolean(
          route.schema && ['params', 'querystring', 'body'].some((p) => p in route.schema!),
        ) || Boolean(route.config?.bodyMediaHint);
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(requestFor(route, method), async (req) => {
          const res = await send(method, req.path, req);
          statuses.add(res.status);
          expect(
            res.status,
            `${method} ${req.path} → ${res.status} ${res.text.slice(0, 300)}`,
          ).toBeLessThan(500);
          noMissedIdCheck();
        }),
        fuzzParams(hasInput ? 50 : 5),
      );
      // The credentials reached the route: not every request stopped at the door.
      if (route.url.startsWith('/v1/') || isSession(route.url))
        expect(
          [...statuses].some((s) => s !== 401 && s !== 403),
          [...statuses].join(),
        ).toBe(true);
    },
    180_000,
  );
});

// ---------------------------------------------------------------------------------------------
// GraphQL

const gql = (query: string, variables: unknown) =>
  send('POST', '/graphql', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: toJson({ query, variables }),
  });

function noInternalError(res: Sent) {
  expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
  expect(res.text).not.toContain('INTERNAL_SERVER_ERROR');
  noMissedIdCheck();
}

const gqlString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...(ctx.strings ?? []), 'Hello') },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: hostileValue },
);
const gqlId = fc.oneof(
  { weight: 3, arbitrary: someId(ctx) },
  { weight: 1, arbitrary: hostileString },
  { weight: 1, arbitrary: hostileValue },
);

describe('GraphQL answers no 5xx and no internal error', () => {
  it('createPost with fuzzed input', async () => {
    const input = fc.record(
      {
        platform: fc.oneof(fc.constantFrom(...PLATFORMS), gqlString),
        body: gqlString,
        hashtags: fc.option(gqlString),
        scheduleAt: fc.option(fc.oneof(fc.constant('2030-01-01T09:00:00Z'), gqlString)),
        kind: fc.option(fc.oneof(fc.constantFrom('text', 'image', 'video'), gqlString)),
        assetIds: fc.option(fc.oneof(fc.array(gqlId, { maxLength: 3 }), hostileValue)),
        brandId: fc.option(gqlId),
      },
      { requiredKeys: [] },
    );
    // A post GraphQL and the domain both take, so the fuzz also reaches the insert.
    const valid = fc.record(
      {
        platform: fc.constantFrom('linkedin', 'bluesky', 'mastodon'),
        body: fc.oneof(
          fc.constant('Hello'),
          fc.string({ minLength: 1, maxLength: 200 }),
          taint('Hello world'),
        ),
        hashtags: fc.option(fc.oneof(fc.constant('#launch #saas'), taint('#launch'))),
        scheduleAt: fc.option(fc.constant('2030-01-01T09:00:00Z')),
        brandId: fc.option(fc.constant(acct.brandId)),
      },
      { requiredKeys: ['platform', 'body'] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 3, arbitrary: valid },
          { weight: 3, arbitrary: input },
          { weight: 1, arbitrary: hostileValue },
        ),
        async (value) =>
          noInternalError(
            await gql(
              'mutation($input: CreatePostInput!) { createPost(input: $input) { id platform kind status scheduledAt } }',
              { input: value },
            ),
          ),
      ),
      fuzzParams(),
    );
  }, 180_000);

  it('posts with fuzzed arguments', async () => {
    const args = fc.record(
      {
        status: fc.option(fc.oneof(fc.constantFrom('draft', 'scheduled', 'failed'), gqlString)),
        limit: fc.option(fc.oneof(fc.integer(), hostileValue)),
        brandId: fc.option(gqlId),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(args, async (variables) =>
        noInternalError(
          await gql(
            'query($status: String, $limit: Int, $brandId: ID) { posts(status: $status, limit: $limit, brandId: $brandId) { id uuid platform kind status body hashtags headline scheduledFor mediaCount } }',
            variables,
          ),
        ),
      ),
      fuzzParams(),
    );
  }, 180_000);
});

// ---------------------------------------------------------------------------------------------
// MCP

const rpc = (message: unknown) =>
  send('POST', '/mcp', {
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: toJson(message),
  });

function noMcpInternalError(res: Sent) {
  expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
  expect(res.text, res.text.slice(0, 300)).not.toMatch(/"code":\s*-32603/);
  noMissedIdCheck();
}

const listed = JSON.parse((await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).text).result
  .tools as { name: string }[];
const definitions = new Map<string, ToolDefinition>(SHIPPED_TOOLS.map((t) => [t.name, t]));
const toolNames = listed
  .map((t) => t.name)
  .sort((a, b) =>
    destructiveLast(a.startsWith('delete') ? 'DELETE' : a, b.startsWith('delete') ? 'DELETE' : b),
  );

describe('MCP answers no 5xx and no -32603', () => {
  it('every listed tool has its definition here', () => {
    expect(toolNames.length).toBeGreaterThan(15);
    for (const name of toolNames) expect(definitions.has(name), name).toBe(true);
  });

  it.each(toolNames)(
    'tools/call %s with fuzzed arguments',
    async (name) => {
      const args = fc.oneof(
        { weight: 6, arbitrary: inputOf(name, definitions.get(name)!.input) },
        { weight: 1, arbitrary: hostileValue },
      );
      await fc.assert(
        fc.asyncProperty(args, async (value) =>
          noMcpInternalError(
            await rpc({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name, arguments: value },
            }),
          ),
        ),
        fuzzParams(),
      );
    },
    180_000,
  );

  it('every method with fuzzed params, ids and batches', async () => {
    const method = fc.oneof(
      fc.constantFrom(
        'initialize',
        'ping',
        'tools/list',
        'tools/call',
        'prompts/list',
        'prompts/get',
        'resources/list',
        'notifications/initialized',
      ),
      hostileString,
    );
    const message = fc.record(
      {
        jsonrpc: fc.oneof(
          { weight: 5, arbitrary: fc.constant('2.0') },
          { weight: 1, arbitrary: hostileValue },
        ),
        id: fc.oneof(fc.integer(), fc.constantFrom('a', null), hostileValue),
        method,
        params: fc.oneof(
          hostileValue,
          fc.record(
            {
              name: fc.oneof(
                fc.constantFrom(...toolNames, 'content_ops', 'plan_week'),
                hostileString,
              ),
              arguments: hostileValue,
            },
            { requiredKeys: [] },
          ),
          fc.record(
            {
              cursor: hostileValue,
              protocolVersion: fc.oneof(fc.constant('2025-06-18'), hostileValue),
              capabilities: hostileValue,
              clientInfo: hostileValue,
            },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: ['method'] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 4, arbitrary: message },
          { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }) },
        ),
        async (body) => noMcpInternalError(await rpc(body)),
      ),
      fuzzParams(100),
    );
  }, 180_000);
});
