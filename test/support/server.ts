// A real listening server on loopback over a fresh database, plus fixtures that create
// accounts and keys through the same domain functions the CLI uses.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { type App, buildApp } from '../../api/app.ts';
import type { McpOptions } from '../../api/mcp/index.ts';
import { createAccount } from '../../core/accounts/service.ts';
import { createApiKey } from '../../core/apikeys/service.ts';
import { type Config, loadConfig } from '../../core/config.ts';
import { upsertConnectedAccount } from '../../core/connections/db.ts';
import type { OAuthApps } from '../../core/connectors/schema.ts';
import type { Pool } from '../../core/db/pool.ts';
import type { Plan, Scope } from '../../core/kernel/plans.ts';
import type { Platform } from '../../core/kernel/platforms.ts';
import { freshDatabase, type TestDatabase } from './db.ts';

export type TestServer = {
  baseUrl: string;
  app: App;
  pool: Pool;
  db: TestDatabase;
  dataDir: string;
  /** The configuration the app runs with (a worker beside it takes the same). */
  config: Config;
  close: () => Promise<void>;
};

export type ServerOptions = {
  env?: Record<string, string>;
  extend?: (app: App, pool: Pool) => Promise<void>;
  /** Share another server's database (a second API process); it is not dropped on close. */
  db?: TestDatabase;
  mcp?: McpOptions;
  /** The port to listen on (a browser test's PUBLIC_BASE_URL names it); any free one if omitted. */
  port?: number;
  /** A logger for the app (tests that inspect what is logged). */
  logger?: FastifyBaseLogger;
  /** The OAuth platforms' apps the dashboard connects with (a test's stand-ins). */
  oauthApps?: OAuthApps;
};

export const TEST_SESSION_SECRET = 'test-session-secret-0123456789abcdef';
export const TEST_MEDIA_URL_SECRET = 'test-media-url-secret-0123456789abcdef';

/**
 * Starts the app on 127.0.0.1 with a fresh database. `extend` may register extra routes
 * (e.g. a route needing a scope) before the server starts listening.
 */
export async function startServer(opts: ServerOptions = {}): Promise<TestServer> {
  const db = opts.db ?? (await freshDatabase());
  // Each server keeps its media (and anything else under DATA_DIR) in its own directory.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sps-test-data-'));
  const config = loadConfig({ DATABASE_URL: db.url, DATA_DIR: dataDir, ...opts.env });
  const app = await buildApp({
    pool: db.pool,
    config,
    sessionSecret: TEST_SESSION_SECRET,
    mediaUrlSecret: TEST_MEDIA_URL_SECRET,
    mcp: opts.mcp,
    logger: opts.logger,
    oauthApps: opts.oauthApps,
  });
  if (opts.extend) await opts.extend(app, db.pool);
  await app.listen({ port: opts.port ?? 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    app,
    pool: db.pool,
    db,
    dataDir,
    config,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (!opts.db) await db.drop();
    },
  };
}

let seq = 0;

export type TestAccount = {
  accountId: string;
  brandId: string;
  brandUuid: string;
  email: string;
  password: string;
};

export async function makeAccount(pool: Pool, plan: Plan = 'plus'): Promise<TestAccount> {
  const email = `user${++seq}-${process.pid}@example.com`;
  const password = 'correct horse battery';
  const created = await createAccount(pool, { email, password, plan });
  return {
    accountId: created.accountId,
    brandId: created.brand.id,
    brandUuid: created.brand.uuid,
    email,
    password,
  };
}

export async function makeKey(pool: Pool, accountId: string, scopes: Scope[] = ['read']) {
  return (await createApiKey(pool, accountId, { name: 'test', scopes })).key;
}

/** Connects `platform` to the account's brand (no credentials unless given). */
export const connectPlatform = (
  pool: Pool,
  acct: TestAccount,
  platform: Platform,
  opts: { handle?: string; credentials?: Buffer } = {},
) =>
  upsertConnectedAccount(pool, {
    accountId: acct.accountId,
    brandId: acct.brandId,
    platform,
    handle: opts.handle ?? '@brand',
    credentials: opts.credentials,
  });

/** A new account with `platform` connected to its brand, and a key (read, publish unless given). */
export async function makeConnectedAccount(
  pool: Pool,
  platform: Platform,
  opts: { scopes?: Scope[]; handle?: string; credentials?: Buffer } = {},
) {
  const acct = await makeAccount(pool);
  const connected = await connectPlatform(pool, acct, platform, opts);
  const key = await makeKey(pool, acct.accountId, opts.scopes ?? ['read', 'publish']);
  return { acct, key, connected };
}

export type Reply = { status: number; headers: Headers; body: any };

/** Signs in to the dashboard; returns the `cookie` header value of the session. */
export async function login(server: { baseUrl: string }, acct: TestAccount): Promise<string> {
  const res = await call(server, 'POST', '/auth/login', {
    body: { email: acct.email, password: acct.password },
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/** A new account signed in to the dashboard: the account and its session's `cookie` value. */
export async function makeSignedInAccount(server: { baseUrl: string; pool: Pool }, plan?: Plan) {
  const acct = await makeAccount(server.pool, plan);
  return { acct, cookie: await login(server, acct) };
}

/**
 * A new account signed in to the dashboard, ready to send what its pages send: `send` adds
 * the session cookie, our Origin (the server's PUBLIC_BASE_URL) and the CSRF token.
 */
export async function signedInDashboard(
  server: { baseUrl: string; pool: Pool; config: Config },
  plan?: Plan,
) {
  const { acct, cookie } = await makeSignedInAccount(server, plan);
  const session = await call(server, 'GET', '/app/api/session', { headers: { cookie } });
  if (session.status !== 200) throw new Error(`session: ${session.status}`);
  const csrf = session.body.csrf_token as string;
  const headers = {
    cookie,
    origin: new URL(server.config.publicBaseUrl).origin,
    'x-csrf-token': csrf,
  };
  const brand = session.body.brands[0] as { id: string; uuid: string };
  const send = (method: string, path: string, body?: unknown) =>
    call(server, method, `/app/api${path}`, { headers, body });
  return { acct, cookie, csrf, headers, brand, send };
}

/** One HTTP request to the test server; JSON in and out. */
export async function call(
  server: { baseUrl: string },
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${server.baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed };
}
