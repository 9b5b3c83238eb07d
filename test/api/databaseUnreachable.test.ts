// While the database cannot be reached, the API says so: 503 with Retry-After and a stable
// code (a retry can help), never a 500. Connection-class errors are told from every other
// database error by what node-postgres really throws. (The fault suite stops a real Postgres
// under `npm start`: test/faults/postgresOutage.test.ts.)
import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../core/db/pool.ts';
import { isDatabaseUnreachable } from '../../core/db/unreachable.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { startServer, type TestServer } from '../support/server.ts';

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

describe('isDatabaseUnreachable', () => {
  it('is true for a refused connection and for a session the server ends', async () => {
    const refused = new pg.Client({ connectionString: server.db.url });
    expect(isDatabaseUnreachable(await failure(refused.connect()))).toBe(true);

    const client = new pg.Client({ connectionString: db.url });
    client.on('error', () => {});
    await client.connect();
    const { rows } = await client.query('select pg_backend_pid() as pid');
    await db.pool.query('select pg_terminate_backend($1)', [rows[0].pid]);
    const ended = await failure(client.query('select 1'));
    expect(isDatabaseUnreachable(ended)).toBe(true);
    await client.end().catch(() => undefined);
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
  });
});
