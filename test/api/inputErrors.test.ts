// Refused input gets a 4xx that says what to change, on every surface, and stores nothing:
// text Postgres cannot hold (NUL, lone surrogates), a malformed path, a body of the wrong
// type, unknown fields and options (with the close match), MCP params and missing arguments,
// a foreign Origin, and a URL the outbound guard refuses.
import { beforeAll, describe, expect, it } from 'vitest';
import { useDesignService } from '../support/designService.ts';
import { call, login } from '../support/server.ts';
import type { TestAccount, TestServer } from '../support/service.ts';

const svc = useDesignService();
let server: TestServer, acct: TestAccount, key: string;
beforeAll(() => ({ server, acct, key } = svc));

const NUL = 'a\u0000b';
const LONE = 'a\ud800b';

const count = async (table: string) =>
  (await server.pool.query(`select count(*)::int as n from ${table}`)).rows[0].n as number;

/** JSON with a lone surrogate kept as the escape (JSON.stringify would keep it too). */
const rawJson = (value: unknown) => ({
  raw: JSON.stringify(value),
  headers: { 'content-type': 'application/json' },
});

const rpc = (method: string, params?: unknown, headers: Record<string, string> = {}) =>
  call(server, 'POST', '/mcp', {
    key,
    body: { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) },
    headers: { accept: 'application/json', ...headers },
  });

const toolCall = (name: string, args: unknown) => rpc('tools/call', { name, arguments: args });

const gql = (query: string, variables: Record<string, unknown>) =>
  call(server, 'POST', '/graphql', { key, body: { query, variables } });

/** A 422 whose one issue is at `loc` and says why the text cannot be stored. */
function unstorable(res: { status: number; body: any }, loc: (string | number)[]) {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.code).toBe('validation_failed');
  expect(res.body.detail).toEqual([
    {
      loc,
      msg: expect.stringMatching(/NUL character|lone UTF-16 surrogate/),
      type: 'unstorable_text',
    },
  ]);
}

async function draft() {
  const res = await call(server, 'POST', '/v1/posts', {
    key,
    body: { platform: 'linkedin', body: 'fine' },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function designedPost() {
  const res = await call(server, 'POST', '/v1/posts', {
    key,
    body: {
      platform: 'bluesky',
      body: 'Caption',
      brand_id: acct.brandId,
      layout: { layers: [{ kind: 'text', text: 'Title', x: 10, y: 10, w: 500, cid: 't' }] },
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; design_id: string };
}

describe('text Postgres cannot store is a 422 naming the field, and nothing is stored', () => {
  it.each([
    ['a NUL', NUL],
    ['a lone surrogate', LONE],
  ])('%s in a post body or hashtags (REST)', async (_what, bad) => {
    const before = await count('posts');
    unstorable(
      await call(server, 'POST', '/v1/posts', {
        key,
        ...rawJson({ platform: 'linkedin', body: bad }),
      }),
      ['body', 'body'],
    );
    unstorable(
      await call(server, 'POST', '/v1/posts', {
        key,
        ...rawJson({ platform: 'linkedin', body: 'ok', hashtags: bad }),
      }),
      ['body', 'hashtags'],
    );
    expect(await count('posts')).toBe(before);
  });

  it.each([
    ['a NUL', NUL],
    ['a lone surrogate', LONE],
  ])('%s in a reject reason or code leaves the post as it was', async (_what, bad) => {
    const id = await draft();
    for (const field of ['reason', 'code'])
      unstorable(
        await call(server, 'POST', `/v1/posts/${id}/reject`, { key, ...rawJson({ [field]: bad }) }),
        ['body', field],
      );
    const { rows } = await server.pool.query('select status from posts where id = $1', [id]);
    expect(rows[0].status).toBe('draft');
  });

  it.each([
    ['a NUL', NUL],
    ['a lone surrogate', LONE],
  ])(
    '%s in layout text, through the PATCH and edit_layers, keeps the layout',
    async (_what, bad) => {
      const post = await designedPost();
      unstorable(
        await call(server, 'PATCH', `/v1/posts/${post.id}/design`, {
          key,
          ...rawJson({ layout: { layers: [{ kind: 'text', text: bad, x: 0, y: 0, w: 100 }] } }),
        }),
        ['body', 'layout', 'layers', 0, 'text'],
      );
      const res = await toolCall('edit_layers', {
        post_id: post.id,
        layout_version: 1,
        ops: [{ op: 'set', cid: 't', fields: { text: bad } }],
      });
      expect(res.body.error.code).toBe(-32602);
      expect(res.body.error.message).toMatch(/arguments\.ops\.0\.fields\.text: contains/);
      const { rows } = await server.pool.query('select layout_version from designs where id = $1', [
        post.design_id,
      ]);
      expect(rows[0].layout_version).toBe(1);
    },
  );

  it('a NUL in asset listing and upload parameters', async () => {
    const before = await count('assets');
    unstorable(await call(server, 'GET', `/v1/assets?q=${encodeURIComponent(NUL)}`, { key }), [
      'query',
      'q',
    ]);
    for (const field of ['filename', 'alt_text']) {
      const res = await call(
        server,
        'POST',
        `/v1/assets/upload?${field}=${encodeURIComponent(NUL)}`,
        {
          key,
          raw: 'not read',
          headers: { 'content-type': 'image/png' },
        },
      );
      unstorable(res, ['query', field]);
    }
    expect(await count('assets')).toBe(before);
  });

  it('a NUL in a login e-mail or an API key name (session routes)', async () => {
    unstorable(
      await call(server, 'POST', '/auth/login', { body: { email: NUL, password: 'whatever' } }),
      ['body', 'email'],
    );
    const cookie = await login(server, acct);
    const before = await count('api_keys');
    unstorable(
      await call(server, 'POST', '/apikeys', {
        body: { name: NUL, scopes: ['read'] },
        headers: { cookie },
      }),
      ['body', 'name'],
    );
    expect(await count('api_keys')).toBe(before);
  });

  it('a NUL in createPost (GraphQL) is a validation_failed error, not an internal one', async () => {
    const before = await count('posts');
    const res = await gql(
      'mutation($b: String!) { createPost(input: { platform: "linkedin", body: $b }) { id } }',
      { b: NUL },
    );
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'validation_failed',
      detail: [{ loc: ['input', 'body'], type: 'unstorable_text' }],
    });
    expect(await count('posts')).toBe(before);
  });

  it('a NUL in create_post (MCP) is -32602 naming the field, not -32603 with a Postgres message', async () => {
    const before = await count('posts');
    const res = await toolCall('create_post', { platform: 'linkedin', body: NUL });
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.message).toMatch(/body: contains a NUL character/);
    expect(await count('posts')).toBe(before);
  });

  it('a field name with a NUL, and input nested deeper than any field takes', async () => {
    const named = await call(server, 'POST', '/v1/posts', {
      key,
      ...rawJson({ platform: 'linkedin', body: 'x', [NUL]: 1 }),
    });
    expect(named.status).toBe(422);
    expect(named.body.detail[0]).toMatchObject({ loc: ['body', NUL], type: 'unstorable_text' });
    const deep = await call(server, 'POST', '/v1/posts', {
      key,
      raw: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(deep.status).toBe(422);
    expect(deep.body.detail[0].type).toBe('too_deep');
  });
});

describe('requests of the wrong form', () => {
  it('a path that is not valid percent-encoding is a 400 in the documented shape', async () => {
    const res = await call(server, 'POST', '/v1/posts/%zz/reject', { key });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: expect.stringMatching(/percent-encoding/),
      code: 'invalid_url',
    });
  });

  it('a text/plain body on a JSON route is a 415, and nothing is stored', async () => {
    const before = await count('posts');
    const res = await call(server, 'POST', '/v1/posts', {
      key,
      raw: '{"platform":"linkedin","body":"x"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      detail: expect.stringMatching(/application\/json/),
      code: 'unsupported_media_type',
    });
    expect(await count('posts')).toBe(before);
  });

  it('an image upload of another type says to send the raw image bytes with their type', async () => {
    for (const type of ['application/pdf', 'text/plain']) {
      const res = await call(server, 'POST', '/v1/assets/upload', {
        key,
        raw: 'bytes',
        headers: { 'content-type': type },
      });
      expect(res.status, type).toBe(415);
      expect(res.body.code).toBe('unsupported_media_type');
      expect(res.body.detail).toMatch(/raw image bytes/);
      expect(res.body.detail).not.toMatch(/application\/json/);
    }
  });
});

describe('a chunk sent as JSON, or not at all', () => {
  it('is a 415 that says to send the raw bytes, not a 500', async () => {
    const init = await call(server, 'POST', '/v1/assets/upload/init', {
      key,
      body: { filename: 'clip.mp4', size_bytes: 1_000 },
    });
    expect(init.status).toBe(200);
    const part = `/v1/assets/upload/part?upload_id=${init.body.upload_id}&index=0`;
    for (const body of [{ body: { bytes: 'AAAA' } }, {}]) {
      const res = await call(server, 'PUT', part, { key, ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(415);
      expect(res.body).toEqual({
        detail: expect.stringMatching(/application\/octet-stream/),
        code: 'unsupported_media_type',
      });
    }
  });
});

describe('errors that name the change to make', () => {
  it('an unknown field or option names its close match', async () => {
    const res = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'twitter', text: 'Hello' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        {
          loc: ['body', 'platform'],
          msg: expect.stringMatching(/^`twitter`: did you mean `x`\?/),
          type: 'invalid_value',
        },
        {
          loc: ['body'],
          msg: '`text`: unknown field; did you mean `body`?',
          type: 'unrecognized_keys',
        },
        {
          loc: ['body', 'body'],
          msg: expect.stringMatching(/^required, but missing/),
          type: 'invalid_type',
        },
      ]),
    );
    const typo = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'linkedin', body: 'x', hashtag: '#a', sheduled_at: 'x' },
    });
    expect(typo.body.detail[0].msg).toBe(
      '`hashtag`: unknown field; did you mean `hashtags`?; `sheduled_at`: unknown field; did you mean `schedule_at`?',
    );
  });

  it('a value of the wrong type says which types fit', async () => {
    const res = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'linkedin', body: 'x', asset_ids: [true] },
    });
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'asset_ids', 0],
        msg: 'expected string or number, received boolean',
        type: 'invalid_union',
      },
    ]);
  });

  it('a layer kind that does not exist names the close one', async () => {
    const post = await designedPost();
    const res = await call(server, 'PATCH', `/v1/posts/${post.id}/design`, {
      key,
      body: { layout: { layers: [{ kind: 'txt', text: 'x', x: 0, y: 0, w: 1 }] } },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ['body', 'layout', 'layers', 0, 'kind'],
      msg: expect.stringMatching(/^`txt`: did you mean `text`\?/),
    });
  });

  it('GraphQL words its issues the same way', async () => {
    const res = await gql(
      'mutation($p: String!) { createPost(input: { platform: $p, body: "x" }) { id } }',
      { p: 'twitter' },
    );
    expect(res.body.errors[0].message).toMatch(/^input\.platform: `twitter`: did you mean `x`\?/);
  });

  it('MCP names a missing argument, and an unknown tool the close one', async () => {
    const missing = await toolCall('get_post', {});
    expect(missing.body.error.code).toBe(-32602);
    expect(missing.body.error.message).toMatch(
      /Invalid arguments for get_post: post_id: required, but missing/,
    );
    expect(missing.body.error.message).not.toMatch(/Invalid input/);
    const typo = await toolCall('create_posts', {});
    expect(typo.body.error.message).toMatch(
      /Unknown tool: create_posts; did you mean create_post\?/,
    );
  });

  it('a foreign Origin is told which origin is accepted (session routes and MCP)', async () => {
    // The test server's PUBLIC_BASE_URL is the default one.
    const own = 'http://localhost:3000';
    const session = await call(server, 'POST', '/auth/login', {
      body: { email: acct.email, password: acct.password },
      headers: { origin: 'https://evil.example' },
    });
    expect(session.status).toBe(403);
    expect(session.body.detail).toContain(own);
    const mcp = await rpc('tools/list', {}, { origin: 'https://evil.example' });
    expect(mcp.status).toBe(403);
    expect(mcp.body.error.message).toContain(own);
  });

  it('a webhook or ingest URL the guard refuses names the setting that would allow it', async () => {
    const cookie = await login(server, acct);
    const webhook = (url: string) =>
      call(server, 'POST', '/webhooks', { body: { url }, headers: { cookie } });
    expect((await webhook('http://example.com/hook')).body.detail[0].msg).toMatch(
      /OUTBOUND_ALLOW_HTTP/,
    );
    expect((await webhook('https://127.0.0.1/hook')).body.detail[0].msg).toMatch(
      /OUTBOUND_ALLOWLIST/,
    );
    const ingest = await call(server, 'POST', '/v1/assets', {
      key,
      body: { url: 'https://127.0.0.1/a.png' },
    });
    expect(ingest.status).toBe(422);
    expect(ingest.body.detail[0].msg).toMatch(/OUTBOUND_ALLOWLIST/);
  });
});

describe('MCP params of the wrong shape are -32602 naming the field, not -32603 with a zod dump', () => {
  it.each([
    [
      'tools/call with arguments: false',
      'tools/call',
      { name: 'whoami', arguments: false },
      /arguments:/,
    ],
    ['prompts/get without params', 'prompts/get', undefined, /Invalid params for prompts\/get/],
    ['prompts/get with a non-string name', 'prompts/get', { name: 5 }, /name:/],
    ['tools/list with cursor {}', 'tools/list', { cursor: {} }, /cursor:/],
    [
      'initialize without a protocol version',
      'initialize',
      { capabilities: {} },
      /protocolVersion/,
    ],
  ])('%s', async (_what, method, params, message) => {
    const res = await rpc(method, params);
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(-32602);
    expect(res.body.error.message).toMatch(message);
    expect(res.body.error.message).not.toMatch(/"code":|\[\s*\{/);
  });
});
