// `npm start` on its own embedded Postgres, as an operator runs it: after real use (an upload
// and its thumbnail, renders over REST and MCP) SIGTERM stops it quietly, completely and in
// time, and its Postgres with it; a SIGKILLed service leaves no Postgres behind, and the next
// start on the same DATA_DIR works.

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { processRuns as alive, startEmbeddedPostgres } from '../core/db/embeddedPostgres.ts';
import { migrate } from '../core/db/migrate.ts';
import { createPool } from '../core/db/pool.ts';
import { loadLocalSecrets } from '../core/secrets.ts';
import { noisePng } from './support/noiseImage.ts';
import { exited, startProcess } from './support/processes.ts';
import { waitFor } from './support/wait.ts';

let dataDir: string;
let key: string;
let brand: { id: string; uuid: string };
// No DATABASE_URL: the service starts (or attaches to) the embedded server in DATA_DIR/pg.
const env = (extra: Record<string, string> = {}) => ({
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  LOG_LEVEL: 'info',
  SHUTDOWN_TIMEOUT_S: '10',
  ...extra,
});

const children: ChildProcess[] = [];
const start = async (extra: Record<string, string> = {}) => {
  const proc = await startProcess('all', env(extra));
  children.push(proc.child);
  return proc;
};

const postmasterPid = (): number | undefined => {
  try {
    return Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
};
beforeAll(async () => {
  // The cluster is initialised and migrated here, so each start below only starts it.
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'sps-shutdown-'));
  const server = await startEmbeddedPostgres({
    dir: path.join(dataDir, 'pg'),
    password: loadLocalSecrets(dataDir).pgPassword,
  });
  const pool = createPool(server.url, 2);
  try {
    await migrate(pool);
    const created = await createAccount(pool, {
      email: 'ops@example.com',
      password: 'a fine password',
      plan: 'pro',
    });
    brand = created.brand;
    key = (
      await createApiKey(pool, created.accountId, {
        name: 'ops',
        scopes: ['read', 'publish', 'media'],
      })
    ).key;
  } finally {
    await pool.end();
    await server.stop();
  }
}, 120_000);

afterAll(() => {
  // Whatever a failed test left running goes (SIGINT: the postmaster's fast shutdown).
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  const pid = postmasterPid();
  if (pid && alive(pid)) process.kill(pid, 'SIGINT');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('stopping the service after real use', () => {
  it('ends with "stopped", exit 0, no error line, and its Postgres stopped', async () => {
    const proc = await start();
    const pid = postmasterPid()!;
    expect(alive(pid)).toBe(true);
    const auth = { authorization: `Bearer ${key}` };

    // An upload (about 14 MB: more than loopback buffers hold) and its thumbnail.
    const png = await noisePng(2400, 1900);
    const upload = await fetch(`${proc.baseUrl}/v1/assets/upload?filename=big.png`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'image/png' },
      body: png,
    });
    expect(upload.status).toBe(201);
    const asset = (await upload.json()) as { id: string };
    const thumb = await fetch(`${proc.baseUrl}/v1/assets/${asset.id}/thumbnail`, { headers: auth });
    expect(thumb.status).toBe(200);
    await thumb.arrayBuffer();

    // A render over REST, and one over MCP with its preview.
    const post = await fetch(`${proc.baseUrl}/v1/posts`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        platform: 'bluesky',
        body: 'Ship faster',
        brand_id: brand.id,
        template: 'launch-big-type',
        layout: { canvas: { aspect: 'portrait' } },
      }),
    });
    expect(post.status).toBe(201);
    expect(((await post.json()) as { render_error: unknown }).render_error).toBeNull();
    const mcp = new Client({ name: 'shutdown-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${proc.baseUrl}/mcp`), {
        requestInit: { headers: auth },
      }),
    );
    const design = (await mcp.callTool({
      name: 'create_design',
      arguments: { brand_uuid: brand.uuid, canvas: 'square', headline: 'Hello' },
    })) as { isError?: boolean; structuredContent?: { design_id: string } };
    expect(design.isError).toBeFalsy();
    const preview = (await mcp.callTool({
      name: 'preview_design',
      arguments: { design_id: design.structuredContent!.design_id },
    })) as { isError?: boolean };
    expect(preview.isError).toBeFalsy();
    await mcp.close();

    // A download in flight when SIGTERM arrives, on a connection its client keeps open: its
    // headers went out before the shutdown, so only the server can end that connection.
    const agent = new http.Agent({ keepAlive: true });
    const download = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http
        .get(`${proc.baseUrl}/v1/assets/${asset.id}/content`, { headers: auth, agent }, resolve)
        .on('error', reject),
    );
    expect(download.statusCode).toBe(200);
    download.pause();
    const downloadId = String(download.headers['x-request-id']);
    proc.child.kill('SIGTERM');
    await waitFor(async () => proc.output().includes('"msg":"shutting down"'), {
      what: 'the shutdown to begin',
    });
    download.resume();
    let bytes = 0;
    download.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    const code = await exited(proc.child);
    agent.destroy();

    const lines = proc
      .output()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(code).toBe(0);
    expect(lines.at(-1).msg).toBe('stopped');
    // The download really was in flight: it completed after the shutdown began, whole.
    const shuttingDown = lines.findIndex((l) => l.msg === 'shutting down');
    const completed = lines.findIndex(
      (l) => l.reqId === downloadId && l.msg === 'request completed',
    );
    expect(completed).toBeGreaterThan(shuttingDown);
    expect(bytes).toBe(png.length);
    // pg_ctl stop waited for it: postmaster.pid is gone, and so is the server (once its
    // parent, init, has reaped it).
    expect(postmasterPid()).toBeUndefined();
    await waitFor(async () => !alive(pid), { what: 'the postmaster to be gone' });
  }, 90_000);
});

describe('a service killed with SIGKILL', () => {
  it('leaves no Postgres running, and the next start on the same DATA_DIR works', async () => {
    const killed = await start();
    const pid = postmasterPid()!;
    expect(alive(pid)).toBe(true);
    killed.child.kill('SIGKILL');
    expect(await exited(killed.child)).toBeNull();

    // Started at once, while the old server may still be stopping: it waits, then starts its own.
    const next = await start();
    await waitFor(async () => !alive(pid), { what: 'the orphaned Postgres to stop' });
    const me = await fetch(`${next.baseUrl}/v1/me`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(me.status).toBe(200);
    const nextPid = postmasterPid()!;
    next.child.kill('SIGTERM');
    expect(await exited(next.child)).toBe(0);
    expect(postmasterPid()).toBeUndefined();
    await waitFor(async () => !alive(nextPid), { what: 'the postmaster to be gone' });
  }, 90_000);
});

describe('a shutdown that cannot finish', () => {
  it('stops at SHUTDOWN_TIMEOUT_S, names what was open, stops its Postgres and exits 1', async () => {
    // At debug level the request's arrival is logged (at info only its answer is).
    const proc = await start({ SHUTDOWN_TIMEOUT_S: '2', LOG_LEVEL: 'debug' });
    const pid = postmasterPid()!;
    // A request whose body never arrives keeps the API from closing.
    const { port } = new URL(proc.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.write(
      `POST /v1/posts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"platform":',
    );
    await waitFor(async () => proc.output().includes('"url":"/v1/posts"'), {
      what: 'the request to arrive',
    });
    proc.child.kill('SIGTERM');
    expect(await exited(proc.child)).toBe(1);
    socket.destroy();

    const lines = proc
      .output()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const overrun = lines.find((l) => l.msg.startsWith('shutdown stopped waiting'));
    expect(overrun).toMatchObject({
      level: 50,
      msg: 'shutdown stopped waiting (not done after SHUTDOWN_TIMEOUT_S=2); stopping the database and exiting',
      waiting_for: 'api',
      open: { api: { requests: ['POST /v1/posts'], connections: 1 }, worker: [] },
    });
    expect(lines.some((l) => l.msg === 'stopped')).toBe(false);
    expect(postmasterPid()).toBeUndefined();
    await waitFor(async () => !alive(pid), { what: 'the postmaster to be gone' });
  }, 90_000);
});
