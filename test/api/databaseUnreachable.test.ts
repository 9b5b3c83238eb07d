// While the database cannot be reached, the API says so: 503 with Retry-After and a stable
// code (a retry can help), never a 500, whether it was gone before the request or went away
// inside the operation, and on REST, GraphQL and MCP alike. Connection-class errors are told
// from every other database error by what node-postgres really throws. (The fault suite stops
// a real Postgres under `npm start`: test/faults/postgresOutage.test.ts.)
import http from 'node:http';
import { createServer, type Socket } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../core/db/pool.ts';
import { isDatabaseUnreachable } from '../../core/db/unreachable.ts';
import { createLogger } from '../../core/logger.ts';
import { type CuttableDatabase, cuttableDatabase } from '../support/cuttableDatabase.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { logSink } from '../support/logs.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call, makeAccount, makeKey, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('it succeeded');
    },
    (err: unknown) => err,
  );

let db: TestDatabase;
let server: TestServer;
beforeAll(async () => {
  db = await freshDatabase();
  const url = `postgres://nobody:nothing@127.0.0.1:${await closedPort()}/none`;
  server = await startServer({ db: { url, pool: createPool(url, 2), drop: async () => {} } });
});
afterAll(async () => {
  await server.close();
  await server.pool.end();
  await db.drop();
});

describe('the API while its database refuses connections', () => {
  it('answers 503 database_unavailable with Retry-After on REST, GraphQL and MCP', async () => {
    const headers = { authorization: `Bearer sps_${'a'.repeat(40)}` };
    for (const [method, route] of [
      ['GET', '/v1/me'],
      ['POST', '/graphql'],
      ['POST', '/mcp'],
    ]) {
      const res = await fetch(`${server.baseUrl}${route}`, {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect(res.status, route).toBe(503);
      expect(res.headers.get('retry-after'), route).toBe('5');
      const body = await res.json();
      expect(JSON.stringify(body), route).toContain('database_unavailable');
    }
  });
});

describe('the API when the database goes away inside an operation (after authentication)', () => {
  let relay: CuttableDatabase;
  let cutServer: TestServer;
  let key: string;
  beforeAll(async () => {
    // The service reaches the file's database through a relay the test cuts when the posts
    // listing's statement (named list_posts) arrives: the key lookup and budget went through.
    relay = await cuttableDatabase(db.url);
    cutServer = await startServer({
      db: { url: relay.url, pool: createPool(relay.url, 4), drop: async () => {} },
    });
    const acct = await makeAccount(db.pool);
    key = await makeKey(db.pool, acct.accountId, ['read']);
  });
  afterAll(async () => {
    await cutServer.close();
    await cutServer.pool.end();
    await relay.close();
  });

  const request = (path: string, body?: unknown) =>
    fetch(`${cutServer.baseUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('REST answers 503 database_unavailable with Retry-After', async () => {
    relay.cutAt('list_posts');
    const res = await request('/v1/posts');
    expect(relay.cut).toBe(true);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toMatchObject({ code: 'database_unavailable', retry_after: 5 });
    await relay.restore();
    expect((await request('/v1/posts')).status).toBe(200);
  });

  it('GraphQL answers 503 with Retry-After and a database_unavailable error, not a masked one', async () => {
    relay.cutAt('list_posts');
    const res = await request('/graphql', { query: '{ posts { id } }' });
    expect(relay.cut).toBe(true);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const body = await res.json();
    expect(body.data).toBeNull();
    expect(body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/cannot reach its database/),
        path: ['posts'],
        extensions: { code: 'database_unavailable', retry_after: 5 },
      }),
    ]);
    await relay.restore();
    const again = await request('/graphql', { query: '{ posts { id } }' });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ data: { posts: [] } });
  });

  it('an MCP tool answers an isError result database_unavailable with _meta code and retry_after', async () => {
    const client = await connectMcp(cutServer, key);
    try {
      relay.cutAt('list_posts');
      const result = (await client.callTool({
        name: 'list_posts',
        arguments: {},
      })) as CallToolResult;
      expect(relay.cut).toBe(true);
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([
        { type: 'text', text: expect.stringMatching(/^database_unavailable: /) },
      ]);
      expect(result._meta).toEqual({ code: 'database_unavailable', retry_after: 5 });
      // Once the database is back, the same client carries on.
      await relay.restore();
      const again = (await client.callTool({
        name: 'list_posts',
        arguments: {},
      })) as CallToolResult;
      expect(again.isError).toBeFalsy();
      expect(again.structuredContent).toEqual({ posts: [] });
    } finally {
      await client.close();
    }
  });
});

describe('the API while its database takes connections but never answers', () => {
  it('answers 503 database_unavailable once the connect timeout passes, not never', async () => {
    const held = new Set<Socket>();
    const silent = createServer((socket) => {
      held.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `postgres://nobody:nothing@127.0.0.1:${(silent.address() as { port: number }).port}/none`;
    const stalled = await startServer({
      db: { url, pool: createPool(url, 2), drop: async () => {} },
    });
    const pool = createPool(url, 1);
    try {
      const [res, err] = await Promise.all([
        fetch(`${stalled.baseUrl}/v1/me`, {
          headers: { authorization: `Bearer sps_${'b'.repeat(40)}` },
        }),
        failure(pool.query('select 1')),
      ]);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toMatchObject({ code: 'database_unavailable' });
      // What node-postgres throws for it is told from other database errors as unreachable.
      expect(isDatabaseUnreachable(err)).toBe(true);
    } finally {
      await stalled.close();
      await Promise.all([stalled.pool.end(), pool.end()]);
      for (const socket of held) socket.destroy();
      silent.close();
    }
  }, 40_000);
});

describe('isDatabaseUnreachable', () => {
  it('is true for a refused connection and for a session the server ends', async () => {
    const refused = createPool(server.db.url, 1);
    expect(isDatabaseUnreachable(await failure(refused.query('select 1')))).toBe(true);
    expect(isDatabaseUnreachable(await failure(refused.connect()))).toBe(true);
    await refused.end();

    const pool = createPool(db.url, 1);
    const client = await pool.connect();
    const { rows } = await client.query('select pg_backend_pid() as pid');
    await db.pool.query('select pg_terminate_backend($1)', [rows[0].pid]);
    const ended = await failure(client.query('select 1'));
    expect(isDatabaseUnreachable(ended)).toBe(true);
    client.release(true);
    await pool.end();
  });

  it('is false for the errors of a database that answers, and for other servers', async () => {
    expect(isDatabaseUnreachable(await failure(db.pool.query('selec 1')))).toBe(false);
    expect(isDatabaseUnreachable(await failure(db.pool.query('select 1/0')))).toBe(false);
    expect(isDatabaseUnreachable(await failure(db.pool.query('select * from nowhere')))).toBe(
      false,
    );
    // A request to another server refused: a fetch's TypeError wraps the socket error.
    const port = await closedPort();
    expect(isDatabaseUnreachable(await failure(fetch(`http://127.0.0.1:${port}/`)))).toBe(false);
    // Node's HTTP client (URL ingest, webhooks, S3) raises the socket error itself, with the
    // very code a lost database connection has: still no database outage.
    const raw = await failure(
      new Promise((resolve, reject) =>
        http.get(`http://127.0.0.1:${port}/`, resolve).on('error', reject),
      ),
    );
    expect(raw).toMatchObject({ code: 'ECONNREFUSED' });
    expect(isDatabaseUnreachable(raw)).toBe(false);
  });
});

describe('errors of other servers and clients during a request', () => {
  let logged = '';
  let live: TestServer;
  let key: string;
  let files: http.Server;
  let base: string;
  beforeAll(async () => {
    live = await startServer({
      db,
      env: { OUTBOUND_ALLOWLIST: '127.0.0.0/8', OUTBOUND_ALLOW_HTTP: 'true' },
      logger: createLogger(
        'info',
        logSink((line) => {
          logged += line;
        }),
      ),
    });
    const acct = await makeAccount(db.pool);
    key = await makeKey(db.pool, acct.accountId, ['read', 'media']);
    // A file server that sends the headers and a first part, then resets the connection.
    files = http.createServer((req, res) => {
      res.writeHead(200, {
        'content-type': req.url === '/cut.png' ? 'image/png' : 'video/mp4',
        'content-length': '1000000',
      });
      res.write(Buffer.alloc(10_000), () => setTimeout(() => req.socket.resetAndDestroy(), 50));
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(files.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await live.close();
    await new Promise((r) => files.close(r));
  });

  it('an ingest the remote server resets mid-download is 422, not a database outage', async () => {
    for (const file of ['cut.mp4', 'cut.png']) {
      const res = await call(live, 'POST', '/v1/assets', { key, body: { url: `${base}/${file}` } });
      expect(res.status, file).toBe(422);
      expect(res.body.detail[0].msg, file).toMatch(
        /^cannot ingest this URL: the download broke off/,
      );
    }
    expect(logged).not.toContain('database unreachable');
    const listed = await call(live, 'GET', '/v1/assets', { key });
    expect(listed.body.assets).toEqual([]);
  });

  it('a client aborting its upload is not logged as a database outage', async () => {
    const before = logged.length;
    await new Promise<void>((resolve) => {
      const req = http.request(`${live.baseUrl}/v1/assets/upload`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'image/png',
          'content-length': '1000000',
        },
      });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(10_000), () => setTimeout(() => req.destroy(), 100));
    });
    // Whatever the service makes of it, it logs it.
    const said = /the client closed the request|database unreachable|request failed/;
    await waitFor(async () => said.test(logged.slice(before)), { what: 'the log line' });
    expect(logged.slice(before)).toContain('the client closed the request before its body ended');
    expect(logged.slice(before)).not.toContain('database unreachable');
    expect(logged.slice(before)).not.toContain('request failed');
  });
});
