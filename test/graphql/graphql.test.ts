// The GraphQL beta (SPEC.md "GraphQL (beta)"): the three operations, the same keys, scopes,
// plan and budget as REST, and the limits, each one under and one over its bound.
import { request } from 'node:http';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { setBudget } from '../../core/accounts/service.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { type TestAccount, type TestServer, useService } from '../support/service.ts';
import { awayFromMinuteBoundary } from '../support/wait.ts';

const svc = useService({ account: { scopes: ['read', 'publish'] } });
let server: TestServer, owner: TestAccount, key: string, readOnly: string;
beforeAll(async () => {
  ({ server, acct: owner, key } = svc);
  readOnly = await makeKey(server.pool, owner.accountId, ['read']);
});

const gql = (
  query: string,
  variables?: Record<string, unknown>,
  k: string | undefined = key,
  headers = {},
) => call(server, 'POST', '/graphql', { key: k, body: { query, variables }, headers });

/** A POST with no Accept header at all (fetch always sends one). */
function postWithoutAccept(query: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ query }));
  });
}

const CREATE = `mutation Create($input: CreatePostInput!) {
  createPost(input: $input) { id platform kind status scheduledAt }
}`;

describe('me', () => {
  it('answers email, plan and scopes for any valid key', async () => {
    const res = await gql('{ me { email plan scopes } }', undefined, readOnly);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { me: { email: owner.email, plan: 'plus', scopes: ['read'] } },
    });
  });
});

describe('createPost', () => {
  it('creates a draft from variables, with the id as a string', async () => {
    const res = await gql(CREATE, {
      input: { platform: 'bluesky', body: 'Hello "quoted" {braces}', hashtags: '#gql' },
    });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createPost).toEqual({
      id: expect.stringMatching(/^\d+$/),
      platform: 'bluesky',
      kind: 'text',
      status: 'draft',
      scheduledAt: null,
    });
    const rest = await call(server, 'GET', '/v1/posts', { key });
    expect(rest.body[0]).toMatchObject({
      id: res.body.data.createPost.id,
      body: 'Hello "quoted" {braces}',
      hashtags: '#gql',
    });
  });

  it('schedules directly with a future scheduleAt', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const res = await gql(CREATE, {
      input: { platform: 'mastodon', body: 'later', scheduleAt: at },
    });
    expect(res.body.data.createPost).toMatchObject({ status: 'scheduled', scheduledAt: at });
  });

  it('answers invalid input with HTTP 200, errors and GraphQL argument names', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const res = await gql(CREATE, { input: { platform: 'bluesky', body: 'x', scheduleAt: past } });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    expect(res.body.errors[0].extensions.detail[0].loc).toEqual(['input', 'scheduleAt']);
    const platform = await gql(CREATE, { input: { platform: 'myspace', body: 'x' } });
    expect(platform.status).toBe(200);
    expect(platform.body.errors[0].extensions.detail[0].loc).toEqual(['input', 'platform']);
  });

  it('answers a missing scope with HTTP 200 and errors, creating nothing', async () => {
    const before = await server.pool.query('select count(*)::int as n from posts');
    const res = await gql(CREATE, { input: { platform: 'bluesky', body: 'x' } }, readOnly);
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'missing_scope',
      required_scope: 'publish',
    });
    const after = await server.pool.query('select count(*)::int as n from posts');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});

describe('posts', () => {
  let listKey: string;
  let brandId: string;
  beforeAll(async () => {
    const acct = await makeAccount(server.pool);
    brandId = acct.brandId;
    listKey = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
    for (let i = 0; i < 30; i++)
      await gql(CREATE, { input: { platform: 'x', body: `p${i}` } }, listKey);
    await gql(
      CREATE,
      {
        input: {
          platform: 'x',
          body: 'sched',
          scheduleAt: new Date(Date.now() + 3_600_000).toISOString(),
        },
      },
      listKey,
    );
  });

  const POSTS = `query P($status: String, $limit: Int, $brandId: ID) {
    posts(status: $status, limit: $limit, brandId: $brandId) {
      id uuid platform kind status body hashtags headline scheduledFor mediaCount
    }
  }`;

  it('lists 25 drafts of the selected brand by default, newest first', async () => {
    const res = await gql(POSTS, {}, listKey);
    expect(res.status).toBe(200);
    expect(res.body.data.posts).toHaveLength(25);
    expect(res.body.data.posts[0]).toMatchObject({
      body: 'p29',
      status: 'draft',
      mediaCount: 0,
      scheduledFor: null,
    });
    expect(typeof res.body.data.posts[0].id).toBe('string');
  });

  it('clamps limit to 1-100 and filters by status and brand', async () => {
    expect((await gql(POSTS, { limit: 0 }, listKey)).body.data.posts).toHaveLength(1);
    expect((await gql(POSTS, { limit: 1000 }, listKey)).body.data.posts).toHaveLength(30);
    const sched = await gql(POSTS, { status: 'scheduled', brandId }, listKey);
    expect(sched.body.data.posts.map((p: any) => p.body)).toEqual(['sched']);
    expect(sched.body.data.posts[0].scheduledFor).toEqual(expect.any(String));
  });

  it("answers another account's brand with errors (not found)", async () => {
    const res = await gql(POSTS, { brandId: owner.brandId }, listKey);
    expect(res.status).toBe(200);
    expect(res.body.errors[0].extensions.code).toBe('not_found');
  });

  it('answers an unknown status with HTTP 200, validation_failed and the argument name', async () => {
    const res = await gql(POSTS, { status: 'archived' }, listKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    expect(res.body.errors[0].extensions.detail[0].loc).toEqual(['status']);
  });

  it('masks an unexpected failure: no internals in the message', async () => {
    const query = server.pool.query.bind(server.pool) as (...a: unknown[]) => unknown;
    const spy = vi
      .spyOn(server.pool, 'query')
      .mockImplementation(((...a: unknown[]) =>
        (a[0] as { name?: string })?.name === 'list_posts'
          ? Promise.reject(new Error('relation "secret_table" does not exist'))
          : query(...a)) as never);
    try {
      const res = await gql(POSTS, {}, listKey);
      expect(res.status).toBe(200);
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].message).toBe('Unexpected error.');
      expect(JSON.stringify(res.body)).not.toContain('secret_table');
    } finally {
      spy.mockRestore();
    }
  });

  it('needs the read scope', async () => {
    const writeOnly = await makeKey(server.pool, owner.accountId, ['publish']);
    const res = await gql('{ posts { id } }', undefined, writeOnly);
    expect(res.status).toBe(200);
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'missing_scope',
      required_scope: 'read',
    });
  });
});

describe('refused before execution', () => {
  it('401 without a key or with an unknown one', async () => {
    const none = await gql('{ me { email } }', undefined, '');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.config.publicBaseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(none.body.errors[0].extensions.code).toBe('unauthenticated');
    const unknown = await gql('{ me { email } }', undefined, `sps_${'a'.repeat(40)}`);
    expect(unknown.status).toBe(401);
  });

  it('403 plan_required on the free plan', async () => {
    const free = await makeAccount(server.pool, 'free');
    const res = await gql(
      '{ me { email } }',
      undefined,
      await makeKey(server.pool, free.accountId, ['read']),
    );
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions.code).toBe('plan_required');
  });

  it('429 once the account budget is spent, counted with REST', async () => {
    await awayFromMinuteBoundary();
    const acct = await makeAccount(server.pool);
    const k = await makeKey(server.pool, acct.accountId, ['read']);
    await setBudget(server.pool, acct.accountId, 2);
    expect((await call(server, 'GET', '/v1/me', { key: k })).status).toBe(200);
    expect((await gql('{ me { email } }', undefined, k)).status).toBe(200);
    const res = await gql('{ me { email } }', undefined, k);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.body.errors[0].extensions.code).toBe('rate_limited');
  });

  it('405 with Allow: POST for GET and the other methods', async () => {
    const res = await call(server, 'GET', '/graphql?query={me{email}}', { key });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.errors[0].extensions.code).toBe('method_not_allowed');
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const other = await call(server, method, '/graphql', {
        key,
        body: { query: '{ me { email } }' },
      });
      expect(other.status).toBe(405);
      expect(other.headers.get('allow')).toBe('POST');
    }
  });
});

describe('OpenAPI', () => {
  it('is still served, without the GraphQL route', async () => {
    const res = await call(server, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.paths['/v1/me']).toBeDefined();
    expect(res.body.paths['/graphql']).toBeUndefined();
  });
});

describe('syntax, validation and limits: HTTP 400, data null, errors', () => {
  const refused = (res: { status: number; body: any }) => {
    expect(res.status).toBe(400);
    expect(res.body.data).toBeNull();
    expect(res.body.errors.length).toBeGreaterThan(0);
  };

  it.each(['application/json', 'application/graphql-response+json', '*/*'])(
    'a syntax error (Accept: %s)',
    async (accept) => refused(await gql('{ me { email ', undefined, key, { accept })),
  );

  it('a syntax error with no Accept header (yoga alone would answer 200)', async () => {
    refused(await postWithoutAccept('{ me { email '));
    refused(await postWithoutAccept('{ me { password } }'));
    expect((await postWithoutAccept('{ me { email } }')).status).toBe(200);
  });

  it('an unknown field', async () => refused(await gql('{ me { password } }')));

  it('a body without a query, a batch, or a body that is not an object', async () => {
    refused(await call(server, 'POST', '/graphql', { key, body: { variables: {} } }));
    refused(await call(server, 'POST', '/graphql', { key, body: [{ query: '{ me { email } }' }] }));
    const nothing = await call(server, 'POST', '/graphql', { key, body: null });
    refused(nothing);
    expect(nothing.body.errors[0].extensions.code).toBe('invalid_request');
  });

  it('variables of the wrong type', async () => {
    refused(await gql('query($n: Int) { posts(limit: $n) { id } }', { n: 'ten' }));
  });

  it('a body that is not JSON is 415, in the same shape', async () => {
    const res = await call(server, 'POST', '/graphql', {
      key,
      raw: '{ me { email } }',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.errors[0].extensions.code).toBe('unsupported_media_type');
  });

  it('introspection', async () => {
    refused(await gql('{ __schema { types { name } } }'));
    refused(await gql('{ __type(name: "Post") { fields { name } } }'));
  });

  it('query string: 2,000 characters pass, 2,001 do not', async () => {
    const base = '{ me { email } }';
    const pad = (n: number) => `${base}${' '.repeat(n - base.length)}`;
    expect((await gql(pad(2000))).status).toBe(200);
    const over = await gql(pad(2001));
    refused(over);
    expect(over.body.errors[0].extensions.code).toBe('query_too_long');
  });

  it('root fields in a query: 8 pass, 9 do not', async () => {
    const fields = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `m${i}: me { plan }`).join(' ')} }`;
    const ok = await gql(fields(8));
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.data)).toHaveLength(8);
    const over = await gql(fields(9));
    refused(over);
    expect(over.body.errors[0].extensions.code).toBe('too_many_root_fields');
  });

  it('root fields counted through fragments', async () => {
    const q = `query { ...A ...B } fragment A on Query { a: me { plan } b: me { plan } c: me { plan } d: me { plan } e: me { plan } }
      fragment B on Query { f: me { plan } g: me { plan } h: me { plan } i: me { plan } }`;
    refused(await gql(q));
  });

  it('root fields counted through inline fragments, __typename included', async () => {
    const q = (n: number) =>
      `{ __typename ... on Query { ${Array.from({ length: n - 1 }, (_, i) => `m${i}: me { plan }`).join(' ')} } }`;
    expect((await gql(q(8))).status).toBe(200);
    refused(await gql(q(9)));
  });

  it('root fields in a mutation: 1 passes, 2 do not, and nothing is created', async () => {
    const input = { platform: 'x', body: 'one' };
    const one = await gql('mutation($i: CreatePostInput!) { a: createPost(input: $i) { id } }', {
      i: input,
    });
    expect(one.status).toBe(200);
    const before = await server.pool.query('select count(*)::int as n from posts');
    const two = await gql(
      'mutation($i: CreatePostInput!) { a: createPost(input: $i) { id } b: createPost(input: $i) { id } }',
      { i: input },
    );
    refused(two);
    const after = await server.pool.query('select count(*)::int as n from posts');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('selected fields: 60 pass, 61 do not', async () => {
    // Each aliased `me { email plan scopes }` is 4 fields; __typename adds one each.
    const query = (fields: number) => {
      const full = Math.floor(fields / 8);
      const parts = Array.from(
        { length: full },
        (_, i) => `m${i}: me { email plan scopes a: email b: plan c: scopes __typename }`,
      );
      const rest = fields - full * 8;
      if (rest)
        parts.push(
          `r: me { ${['email', 'plan', 'scopes', 'x: email', 'y: plan', 'z: scopes', '__typename'].slice(0, rest - 1).join(' ')} }`,
        );
      return `{ ${parts.join(' ')} }`;
    };
    const ok = await gql(query(60));
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
    const over = await gql(query(61));
    refused(over);
    expect(over.body.errors[0].extensions.code).toBe('too_many_fields');
  });

  it('selected fields counted through fragments at every use', async () => {
    // me (1) + five uses of a 10-field fragment (50) + n more fields.
    const fields = Array.from({ length: 10 }, (_, i) => `f${i}: email`).join(' ');
    const query = (n: number) =>
      `{ me { ...F ...F ...F ...F ...F ${Array.from({ length: n }, (_, i) => `x${i}: plan`).join(' ')} } }
       fragment F on Me { ${fields} }`;
    expect((await gql(query(9))).status).toBe(200);
    const over = await gql(query(10));
    refused(over);
    expect(over.body.errors[0].extensions.code).toBe('too_many_fields');
  });

  it('fragments that double at each level are refused at once, not expanded', async () => {
    // 50 levels would be 2^49 fields; counting each fragment once keeps this instant.
    const levels = Array.from({ length: 50 }, (_, i) =>
      i < 49
        ? `fragment F${i} on Me { ...F${i + 1} ...F${i + 1} }`
        : `fragment F${i} on Me { email }`,
    );
    const res = await gql(`{ me { ...F0 } } ${levels.join(' ')}`);
    refused(res);
    expect(res.body.errors[0].extensions.code).toBe('too_many_fields');
    // The exact count, 2^49 fields under `me`: arithmetic over fragments counted once, since
    // expanding them could never finish (the test would time out).
    expect(res.body.errors[0].message).toBe(
      `An operation may select at most 60 fields; this one selects ${2 ** 49 + 1}.`,
    );
  });

  it('a fragment cycle is refused, not followed', async () => {
    const res = await gql(
      '{ me { ...A } } fragment A on Me { email ...B } fragment B on Me { plan ...A }',
    );
    refused(res);
    expect(res.body.errors[0].message).toMatch(/within itself/);
  });
});
