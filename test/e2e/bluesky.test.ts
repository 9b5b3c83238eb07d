// End to end against a real PDS (@atproto/dev-env in a child process, on loopback): a brand
// connected with the operator CLI, a scheduled post with an image published by the real
// worker, the record read back from the PDS, the post.published webhook, an expired session
// renewed and kept, a revoked app password, a worker killed mid-publication leaving exactly
// one record, and the brand's history imported back from the PDS into its memory.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCredentials, sealCredentials } from '../../core/connections/credentials.ts';
import { type WorkerRunner as Runner, startWorker } from '../../workers/index.ts';
import { noisePng } from '../support/noiseImage.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { call, login, makeKey, startServer, type TestServer } from '../support/server.ts';
import { followJob, waitFor } from '../support/wait.ts';
import {
  connectedBrand as connectedOn,
  ENV,
  KEY,
  type Network,
  type PdsAccount,
  schedule as scheduleOn,
  settled as settledOn,
  startNetwork,
  workerDeps as workerDepsOn,
} from './network.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

let net: Network;
let pds: string;
let server: TestServer;
let receiver: Receiver;
let worker: Runner | undefined;

const posts = (did: string) => net.posts(did);
const xrpc: Network['xrpc'] = (nsid, init) => net.xrpc(nsid, init);
const pdsAccount = (name: string) => net.account(name);
const connectedBrand = (name: string) => connectedOn(server, net, name);
const workerDeps = () => workerDepsOn(server, net);
const schedule = (key: string, body: Record<string, unknown>) => scheduleOn(server, key, body);
const settled = (id: string, timeoutMs?: number) => settledOn(server, id, timeoutMs);

async function storedCredentials(connectedId: string) {
  const { rows } = await server.pool.query(
    'select credentials, status, last_error from connected_accounts where id = $1',
    [connectedId],
  );
  return { ...rows[0], opened: openCredentials(KEY, rows[0].credentials) as Record<string, any> };
}

async function storeCredentials(connectedId: string, value: Record<string, unknown>) {
  await server.pool.query('update connected_accounts set credentials = $2 where id = $1', [
    connectedId,
    sealCredentials(KEY, value),
  ]);
}

/** A JWT-shaped token that expired an hour ago (the connector reads `exp` only). */
const expiredJwt = () =>
  ['{"alg":"none"}', JSON.stringify({ exp: Math.floor(Date.now() / 1000) - 3600 }), 'x']
    .map((p, i) => (i < 2 ? Buffer.from(p).toString('base64url') : p))
    .join('.');

beforeAll(async () => {
  net = await startNetwork();
  pds = net.pds;
  server = await startServer({ env: ENV });
  receiver = await startReceiver();
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await server?.close();
  net?.close();
});

describe('publishing to a real PDS', () => {
  let brand: Awaited<ReturnType<typeof connectedBrand>>;
  let mentioned: PdsAccount;

  beforeAll(async () => {
    brand = await connectedBrand('alice');
    mentioned = await pdsAccount('bob');
    worker = await startWorker({ ...workerDeps(), concurrency: 2 });
  });

  it('publishes a scheduled post with an image; text, image and facets read back as sent', async () => {
    const { acct, key, account } = brand;
    const cookie = await login(server, acct);
    const hook = await call(server, 'POST', '/webhooks', {
      body: { url: receiver.url('/bluesky') },
      headers: { cookie },
    });
    expect(hook.status).toBe(201);

    const png = await noisePng(900, 600); // over 1 MB: re-encoded to fit the blob limit
    const up = await fetch(`${server.baseUrl}/v1/assets/upload?alt_text=Static%20noise`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' },
      body: new Uint8Array(png),
    });
    expect(up.status).toBe(201);
    const asset = (await up.json()) as { id: string };

    const text = `Lancement 🚀 café: https://example.com/launch?x=1, with @${mentioned.handle}`;
    const post = await schedule(key, { body: text, hashtags: '#launch', asset_ids: [asset.id] });
    expect(post.status).toBe(201);
    const row = await settled(post.body.id);
    expect(row.error).toBeNull();
    expect(row.status).toBe('published');

    const records = await posts(account.did);
    expect(records.map((r) => r.uri)).toEqual([row.external_post_id]);
    const [, , did, collection, rkey] = row.external_post_id.split('/');
    expect([did, collection]).toEqual([account.did, 'app.bsky.feed.post']);
    expect(row.permalink_url).toBe(`https://bsky.app/profile/${account.did}/post/${rkey}`);

    const record = records[0]!.value;
    const sent = `${text}\n\n#launch`;
    expect(record.text).toBe(sent);
    const bytes = (s: string) => Buffer.byteLength(sent.slice(0, sent.indexOf(s)), 'utf8');
    const span = (s: string) => ({ byteStart: bytes(s), byteEnd: bytes(s) + Buffer.byteLength(s) });
    expect(record.facets).toEqual([
      {
        index: span('https://example.com/launch?x=1'),
        features: [
          { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/launch?x=1' },
        ],
      },
      {
        index: span(`@${mentioned.handle}`),
        features: [{ $type: 'app.bsky.richtext.facet#mention', did: mentioned.did }],
      },
      {
        index: span('#launch'),
        features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'launch' }],
      },
    ]);

    const [image] = record.embed.images;
    expect(record.embed.$type).toBe('app.bsky.embed.images');
    expect(image.alt).toBe('Static noise');
    expect(image.aspectRatio).toEqual({ width: 900, height: 600 });
    expect(image.image.size).toBeLessThanOrEqual(1_000_000);
    const blob = await fetch(
      `${pds}/xrpc/com.atproto.sync.getBlob?${new URLSearchParams({ did: account.did, cid: image.image.ref.$link })}`,
    );
    const meta = await sharp(Buffer.from(await blob.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 900, 600]);

    const delivered = await waitFor(
      async () => receiver.on('/bluesky').length > 0 && receiver.on('/bluesky'),
      { what: 'the post.published webhook' },
    );
    const event = JSON.parse(delivered[0]!.raw.toString('utf8'));
    expect(event).toMatchObject({
      event: 'post.published',
      post: { id: post.body.id, external_post_id: records[0]!.uri, status: 'published' },
    });
  });

  it("imports the brand's history from the PDS: the published post becomes an example", async () => {
    const { acct, account } = brand;
    const key = await makeKey(server.pool, acct.accountId, ['read', 'generate']);
    const started = await call(server, 'POST', '/v1/brand-memory/import', {
      key,
      body: { platforms: ['bluesky'] },
    });
    expect(started.status).toBe(202);
    const job = await followJob(
      async () =>
        (await server.pool.query('select * from jobs where id = $1', [started.body.job_id]))
          .rows[0],
      { timeoutMs: 30_000, what: 'the history import' },
    );
    expect(job.error).toBeNull();
    expect(job.result).toMatchObject({ read: { bluesky: { posts: 1 } }, examples: 1 });
    const memory = (await call(server, 'GET', '/v1/brand-memory', { key })).body;
    expect(memory.doc.examples[0]).toMatchObject({
      platform: 'bluesky',
      text: expect.stringMatching(/^Lancement 🚀 café/),
      url: expect.stringContaining(`/profile/${account.did}/post/`),
    });
    expect(memory.doc.habits).toMatchObject({ posts_read: 1, top_hashtags: ['#launch'] });
  });

  it('renews an expired session and keeps the new one for the next publication', async () => {
    const { key, account, connectedId } = brand;
    const before = await storedCredentials(connectedId);
    await storeCredentials(connectedId, {
      ...before.opened,
      session: { ...before.opened.session, accessJwt: expiredJwt() },
    });
    const row = await settled((await schedule(key, { body: 'after a refresh' })).body.id);
    expect(row.status).toBe('published');
    const after = await storedCredentials(connectedId);
    expect(after.opened.session.did).toBe(account.did);
    expect(after.opened.session.accessJwt).not.toBe(before.opened.session.accessJwt);
    expect(after.opened.session.refreshJwt).not.toBe(before.opened.session.refreshJwt);
    expect(after.credentials.toString('latin1')).not.toContain(after.opened.session.accessJwt);
  });

  it('marks the account needs_reconnect when its app password was revoked', async () => {
    const { key, account, connectedId } = await connectedBrand('carol');
    await xrpc('com.atproto.server.revokeAppPassword', {
      token: account.accessJwt,
      body: { name: 'social-publishing' },
    });
    const stored = await storedCredentials(connectedId);
    await storeCredentials(connectedId, {
      ...stored.opened,
      session: { ...stored.opened.session, accessJwt: expiredJwt() },
    });
    const row = await settled((await schedule(key, { body: 'never sent' })).body.id);
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/^Bluesky answered 401: sign-in refused/);
    const health = await storedCredentials(connectedId);
    expect([health.status, health.last_error]).toEqual(['needs_reconnect', row.error]);
    expect(await posts(account.did)).toEqual([]);
  });

  it('publishes a thread as replies, each part its own record', async () => {
    const { account, key } = await connectedBrand('dave');
    const row = await settled(
      (await schedule(key, { kind: 'thread', body: 'first part\n---\nsecond part' })).body.id,
    );
    expect(row.status).toBe('published');
    const records = await posts(account.did);
    const root = records.find((r) => r.uri === row.external_post_id)!;
    const reply = records.find((r) => r.uri !== row.external_post_id)!;
    expect([root.value.text, reply.value.text]).toEqual(['first part', 'second part']);
    expect(reply.value.reply.root.uri).toBe(root.uri);
    expect(reply.value.reply.parent.uri).toBe(root.uri);
  });
});

describe('a worker killed mid-publication', () => {
  it('leaves exactly one record once another worker has finished the job', async () => {
    await worker?.stop();
    worker = undefined;
    const { key, account } = await connectedBrand('erin');
    const post = await schedule(key, { body: 'exactly once, even through a crash' });
    const child = spawn(process.execPath, [path.join(HERE, 'crashingWorker.ts')], {
      env: { ...process.env, DATABASE_URL: server.db.url, DATA_DIR: server.dataDir, ...ENV },
      stdio: 'inherit',
    });
    // The crashing worker dies right after the PDS took the record, before the outcome commits.
    expect(await new Promise((r) => child.once('exit', (_code, signal) => r(signal)))).toBe(
      'SIGKILL',
    );
    expect(await posts(account.did)).toHaveLength(1);
    const stuck = await server.pool.query('select status from posts where id = $1', [post.body.id]);
    expect(stuck.rows[0].status).toBe('publishing');

    worker = await startWorker({
      ...workerDeps(),
      concurrency: 1,
      liveness: { heartbeatMs: 200, staleAfterMs: 2_000 },
    });
    // The sweeper releases the dead worker's job once its heartbeat is stale (2 s); the wait
    // only bounds a hang.
    const row = await settled(post.body.id, 45_000);
    expect(row.status).toBe('published');
    const records = await posts(account.did);
    expect(records).toHaveLength(1);
    expect(records[0]!.uri).toBe(row.external_post_id);
  });
});
