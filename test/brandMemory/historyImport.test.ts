// The history import (POST /v1/brand-memory/import, MCP import_history) against a local server
// that answers as Mastodon documents (verify_credentials, the account's statuses paged with
// max_id), with a real worker: it answers 202 with a job at once; the job reads the posts,
// keeps the most engaging as examples, measures the brand's habits, and writes one new memory
// version; an account that cannot be read is skipped, saying why, not failed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey, sealCredentials } from '../../core/connections/credentials.ts';
import { builtinConnectors } from '../../core/connectors/builtin.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { storageFor } from '../../core/storage/storage.ts';
import type { WorkerRunner } from '../../workers/index.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call, connectPlatform, makeAccount, makeKey } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, startWorkerBeside, useServer } from '../support/service.ts';
import { followJob } from '../support/wait.ts';

const KEY = credentialsKey(Buffer.alloc(32, 9).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
let instance: Server;
let instanceUrl: string;
let worker: WorkerRunner;
const pages: string[] = [];

/** 55 statuses, newest first: every 10th much liked, some with emoji and hashtags. */
const STATUSES = Array.from({ length: 55 }, (_, i) => {
  const n = 55 - i;
  return {
    id: String(1000 + n),
    url: `https://social.example/@bakery/${1000 + n}`,
    content: `<p>Fresh sourdough batch ${n} is out of the oven${n % 3 ? '' : ' 🍞'}.</p><p>Come early! #bakery${n % 2 ? ' #sourdough' : ''}</p>`,
    created_at: new Date(Date.UTC(2026, 9, 1 + (n % 28), n % 2 ? 7 : 16, 30)).toISOString(),
    favourites_count: n % 10 === 0 ? 100 + n : n % 5,
    reblogs_count: 1,
    replies_count: 0,
  };
});

beforeAll(async () => {
  instance = createServer((req, res) => {
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.authorization !== 'Bearer good-token') return json(401, { error: 'invalid' });
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/api/v1/accounts/verify_credentials')
      return json(200, { id: '77', username: 'bakery', acct: 'bakery' });
    if (url.pathname === '/api/v1/accounts/77/statuses') {
      pages.push(url.search);
      const limit = Number(url.searchParams.get('limit'));
      const maxId = url.searchParams.get('max_id');
      const from = maxId ? STATUSES.findIndex((s) => s.id === maxId) + 1 : 0;
      return json(200, STATUSES.slice(from, from + limit));
    }
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => instance.listen(0, '127.0.0.1', resolve));
  instanceUrl = `http://127.0.0.1:${(instance.address() as AddressInfo).port}`;
  worker = await startWorkerBeside(server, {
    credentialsKey: KEY,
    connectors: builtinConnectors({
      outbound: outboundPolicy(server.config),
      storage: storageFor(server.config),
    }),
  });
});
afterAll(async () => {
  await worker?.stop();
  await new Promise((resolve) => instance.close(resolve));
});

async function brandWithMastodon() {
  const acct = await makeAccount(server.pool);
  await connectPlatform(server.pool, acct, 'mastodon', {
    handle: '@bakery@social.example',
    credentials: sealCredentials(KEY, { instance: instanceUrl, access_token: 'good-token' }),
  });
  // Bluesky connected too, without credentials: it is skipped, saying why.
  await connectPlatform(server.pool, acct, 'bluesky', { handle: '@bakery.bsky.social' });
  const key = await makeKey(server.pool, acct.accountId, ['read', 'generate']);
  return { acct, key };
}

/** Follows a job to its end through job_status. */
const finished = (client: Client, jobId: string) =>
  followJob(
    async (wait_s) =>
      (await client.callTool({ name: 'job_status', arguments: { job_id: jobId, wait_s } }))
        .structuredContent as { status: string } & Record<string, any>,
    { timeoutMs: 60_000, what: `job ${jobId}` },
  );

describe('the history import', () => {
  it('reads the posts into examples and habits, as one new version', async () => {
    const { key } = await brandWithMastodon();
    const client = await connectMcp(server, key, 'import-test');
    try {
      const started = await call(server, 'POST', '/v1/brand-memory/import', { key, body: {} });
      expect(started.status).toBe(202);
      expect(started.body).toEqual({ job_id: expect.any(String), status: 'queued' });
      const job = await finished(client, started.body.job_id);
      expect(job.status, job.error).toBe('succeeded');
      expect(job.result).toMatchObject({
        read: {
          mastodon: { posts: 55 },
          bluesky: { posts: 0, note: expect.stringMatching(/no credentials to read with/) },
        },
        examples: 20,
        version: 2,
      });
      // Paged with max_id, 40 at a time.
      expect(pages).toEqual(expect.arrayContaining([expect.stringMatching(/max_id=1016/)]));

      const memory = (await call(server, 'GET', '/v1/brand-memory', { key })).body;
      expect(memory.version).toBe(2);
      const examples = memory.doc.examples;
      expect(examples).toHaveLength(20);
      // The most liked first: batches 50, 40, 30, 20, 10.
      expect(
        examples.slice(0, 5).map((e: { text: string }) => /batch (\d+)/.exec(e.text)![1]),
      ).toEqual(['50', '40', '30', '20', '10']);
      expect(examples[0]).toMatchObject({
        platform: 'mastodon',
        text: 'Fresh sourdough batch 50 is out of the oven.\n\nCome early! #bakery',
        engagement: 151,
        url: 'https://social.example/@bakery/1050',
      });
      expect(memory.doc.habits).toMatchObject({
        posts_read: 55,
        top_hashtags: ['#bakery', '#sourdough'],
        posting_hours_utc: expect.arrayContaining([7, 16]),
      });
      expect(memory.doc.habits.frequent_terms).toEqual(
        expect.arrayContaining(['fresh', 'sourdough']),
      );
      expect(memory.doc.habits.hashtags_per_post).toBeCloseTo(1.5, 1);
      expect(memory.doc.habits.emoji_per_post).toBeCloseTo(18 / 55, 2);
      // Inferred from 55 posts, not stated: 0.3 + 0.6 × 55/200.
      expect(memory.confidence.sections.examples).toBeCloseTo(0.465, 1);
      expect(memory.confidence.sections.habits).toBeCloseTo(0.465, 1);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('keeps examples a person stated, and writes the habits beside them', async () => {
    const { key } = await brandWithMastodon();
    const stated = await call(server, 'PATCH', '/v1/brand-memory', {
      key,
      body: {
        expected_version: 1,
        ops: [{ op: 'add', path: '/examples', value: [{ platform: 'x', text: 'Our best post.' }] }],
      },
    });
    expect(stated.status).toBe(200);
    const client = await connectMcp(server, key, 'import-stated');
    try {
      const started = await call(server, 'POST', '/v1/brand-memory/import', { key, body: {} });
      const job = await finished(client, started.body.job_id);
      expect(job.result).toMatchObject({ kept_as_stated: ['examples'], version: 3 });
      const memory = (await call(server, 'GET', '/v1/brand-memory', { key })).body;
      expect(memory.doc.examples).toEqual([{ platform: 'x', text: 'Our best post.' }]);
      expect(memory.doc.habits.posts_read).toBe(55);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('fails saying why when nothing can be read, changing nothing', async () => {
    const acct = await makeAccount(server.pool);
    const key = await makeKey(server.pool, acct.accountId, ['read', 'generate']);
    const client = await connectMcp(server, key, 'import-none');
    try {
      const started = await client.callTool({ name: 'import_history', arguments: {} });
      const job = await finished(client, (started.structuredContent as { job_id: string }).job_id);
      expect(job).toMatchObject({ status: 'failed' });
      expect(job.error).toMatch(/no connected account to read/);
      const revoked = await brandWithMastodon();
      await connectPlatform(server.pool, revoked.acct, 'mastodon', {
        handle: '@bakery@social.example',
        credentials: sealCredentials(KEY, { instance: instanceUrl, access_token: 'revoked' }),
      });
      const again = await call(server, 'POST', '/v1/brand-memory/import', {
        key: revoked.key,
        body: { platforms: ['mastodon'] },
      });
      const owner = await connectMcp(server, revoked.key, 'import-owner');
      try {
        const own = await finished(owner, again.body.job_id);
        expect(own.error).toMatch(/No past post could be read \(mastodon: .*401/);
      } finally {
        await owner.close();
      }
      expect(
        (await call(server, 'GET', '/v1/brand-memory', { key: revoked.key })).body.version,
      ).toBe(1);
    } finally {
      await client.close();
    }
  }, 90_000);
});
