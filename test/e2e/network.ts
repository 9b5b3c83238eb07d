// The end-to-end fixture: a real PDS (and, when asked, the real AppView) in a child process
// (pds.ts), its XRPC, PDS accounts with app passwords, a brand connected to one through the
// operator CLI, and the worker's deps for this service. Shared by the end-to-end test files.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { createLogger } from '../../core/logger.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { storageFor } from '../../core/storage/storage.ts';
import { admin, connectArgs } from '../support/processes.ts';
import { call, makeAccount, makeKey, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const KEY_B64 = Buffer.alloc(32, 9).toString('base64');
export const KEY = credentialsKey(KEY_B64);
export const ENV = {
  OUTBOUND_ALLOWLIST: '127.0.0.0/8,::1/128',
  OUTBOUND_ALLOW_HTTP: 'true',
  CREDENTIALS_KEY: KEY_B64,
};

export type PdsAccount = { did: string; handle: string; accessJwt: string; appPassword: string };
type Xrpc = (
  nsid: string,
  init?: { token?: string; body?: unknown; query?: Record<string, string> },
) => Promise<any>;

export type Network = {
  pds: string;
  /** The AppView's address, when the network runs one. */
  appview?: string;
  /** An XRPC call on the PDS; a non-2xx answer throws. */
  xrpc: Xrpc;
  /** An XRPC query on the AppView. */
  appviewGet: Xrpc;
  /** A new PDS account with an app password. */
  account(name: string): Promise<PdsAccount>;
  /** The account's post records, as the PDS lists them. */
  posts(did: string): Promise<{ uri: string; cid: string; value: Record<string, any> }[]>;
  close(): void;
};

let seq = 0;

/** Starts pds.ts (with the AppView on `appViewDatabaseUrl`) and reads its addresses. */
export async function startNetwork(opts: { appViewDatabaseUrl?: string } = {}): Promise<Network> {
  const child: ChildProcess = spawn(process.execPath, [path.join(HERE, 'pds.ts')], {
    cwd: HERE,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: {
      ...process.env,
      ...(opts.appViewDatabaseUrl ? { APPVIEW_DATABASE_URL: opts.appViewDatabaseUrl } : {}),
    },
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the PDS exited (${code})`)));
  });
  const addresses = JSON.parse(line) as { pds: string; appview?: string };
  const xrpcOn =
    (base: string): Xrpc =>
    async (nsid, init = {}) => {
      const query = init.query ? `?${new URLSearchParams(init.query)}` : '';
      const res = await fetch(`${base}/xrpc/${nsid}${query}`, {
        method: init.body === undefined ? 'GET' : 'POST',
        headers: {
          ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const raw = await res.text();
      const json = raw ? JSON.parse(raw) : {};
      if (!res.ok) throw new Error(`${nsid}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
  const xrpc = xrpcOn(addresses.pds);
  return {
    ...addresses,
    xrpc,
    appviewGet: xrpcOn(addresses.appview ?? 'http://appview.invalid'),
    async account(name) {
      const handle = `${name}${++seq}.test`;
      const created = await xrpc('com.atproto.server.createAccount', {
        body: { email: `${handle}@example.com`, handle, password: 'main-password' },
      });
      const app = await xrpc('com.atproto.server.createAppPassword', {
        token: created.accessJwt,
        body: { name: 'social-publishing' },
      });
      return { ...created, appPassword: app.password };
    },
    async posts(did) {
      const list = await xrpc('com.atproto.repo.listRecords', {
        query: { repo: did, collection: 'app.bsky.feed.post', limit: '100' },
      });
      return list.records;
    },
    close: () => child.kill('SIGTERM'),
  };
}

/** A brand connected to a fresh PDS account through `npm run admin -- connect`. */
export async function connectedBrand(server: TestServer, net: Network, name: string) {
  const account = await net.account(name);
  const acct = await makeAccount(server.pool);
  const res = await admin(
    server.db.url,
    connectArgs(acct, 'bluesky', {
      service: net.pds,
      identifier: account.handle,
      app_password: account.appPassword,
    }),
    { ...ENV, DATA_DIR: server.dataDir },
  );
  expect(res.code, res.stderr).toBe(0);
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish', 'media']);
  return { account, acct, key, connectedId: res.json.id as string };
}

/** What startWorker needs for this server, reading counts from the network's AppView. */
export const workerDeps = (server: TestServer, net: Network) => {
  const config = loadConfig({ DATABASE_URL: server.db.url, DATA_DIR: server.dataDir, ...ENV });
  return {
    pool: server.pool,
    log: createLogger('silent'),
    outbound: outboundPolicy(config),
    storage: storageFor(config),
    credentialsKey: KEY,
    blueskyAppView: net.appview,
  };
};

/** Schedules a Bluesky post half a second from now. */
export const schedule = (server: TestServer, key: string, body: Record<string, unknown>) =>
  call(server, 'POST', '/v1/posts', {
    key,
    body: { platform: 'bluesky', schedule_at: new Date(Date.now() + 500).toISOString(), ...body },
  });

/** The post's row once it is published or failed. */
export const settled = (server: TestServer, id: string, timeoutMs = 20_000) =>
  waitFor(
    async () => {
      const row = (await server.pool.query('select * from posts where id = $1', [id])).rows[0];
      return ['published', 'failed'].includes(row.status) && row;
    },
    { timeoutMs, what: `post ${id} to settle` },
  );
