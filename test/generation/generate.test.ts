// POST /v1/generate and MCP repurpose against a real worker and a small site served on
// loopback: a URL's article becomes one draft per platform, each within its platform's limits,
// none with a banned term of the brand memory, each with its `always` hashtags and linked to
// its source; the same URL within a day reuses its source; a page that is not an article is a
// 422 that says so; a call whose drafts take too long is a 504 naming the job.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containsTerm, draftIssues } from '../../core/generation/offline.ts';
import { splitThread } from '../../core/kernel/platforms.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useService } from '../support/service.ts';

const paragraph = (n: number) =>
  `<p>Sourdough note ${n}: our bakery proofs its dough for eighteen hours in rooms held at twenty-four degrees, and every loaf is shaped by hand before dawn.</p>`;
const ARTICLE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>How we bake 2,000 loaves a day</title><meta property="og:site_name" content="Crumb"></head>
<body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
<article><h1>How we bake 2,000 loaves a day</h1>
${Array.from({ length: 12 }, (_, i) => paragraph(i + 1)).join('\n')}
<p>Cheap shortcuts never reach our ovens, and the crust shows it.</p></article>
<footer>© Crumb bakery</footer></body></html>`;

const hits = new Map<string, number>();
let site: http.Server;
let siteUrl: string;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    if (req.url === '/article')
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    if (req.url === '/moved') return res.writeHead(301, { location: '/article' }).end();
    if (req.url === '/slow-article')
      return void setTimeout(
        () => res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE),
        800,
      );
    if (req.url === '/data.json')
      return res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}');
    if (req.url === '/jsonlie')
      return res.writeHead(200, { 'content-type': 'text/html' }).end('{"not": "html"}');
    if (req.url === '/nul')
      return res
        .writeHead(200, { 'content-type': 'text/html; charset=latin1' })
        .end(ARTICLE.replace('Cheap shortcuts', 'Cheap\u0000 shortcuts'));
    if (req.url === '/empty')
      return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body></body></html>');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => site.close(resolve)));

describe('generation with a worker', () => {
  const svc = useService({
    env: LOOPBACK_OUTBOUND,
    account: { scopes: ['read', 'publish', 'generate'] },
    worker: {},
  });
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(svc.server, svc.key, 'generate-test');
    // The brand's memory: a banned term the article uses, and a hashtag every draft carries.
    const memory = await call(svc.server, 'PATCH', '/v1/brand-memory', {
      key: svc.key,
      body: {
        expected_version: 1,
        ops: [
          { op: 'add', path: '/vocabulary', value: { banned: ['cheap'] } },
          { op: 'add', path: '/hashtags', value: { always: ['#CrumbBakery'], never: ['#loaf'] } },
        ],
      },
    });
    expect(memory.status).toBe(200);
  });
  afterAll(() => client.close());

  const post = async (id: string) =>
    (await client.callTool({ name: 'get_post', arguments: { post_id: id } })).structuredContent as {
      post: Record<string, any>;
    };

  it("drafts a URL's article for the default platforms, each within its limits", async () => {
    const res = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { url: `${siteUrl}/moved` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.post_ids).toHaveLength(3);
    const drafts = await Promise.all(
      res.body.post_ids.map(async (id: string) => (await post(id)).post),
    );
    expect(drafts.map((d) => d.platform).sort()).toEqual(['bluesky', 'linkedin', 'x']);
    for (const d of drafts) {
      expect(d).toMatchObject({ status: 'draft', source_id: res.body.source_id });
      expect(draftIssues(d)).toEqual([]);
      expect(containsTerm(`${d.body} ${d.hashtags} ${d.headline}`, 'cheap'), d.body).toBe(false);
      expect(d.hashtags.split(' ')).toContain('#CrumbBakery');
      expect(d.body).toContain('eighteen hours');
      // Each draft links back to the article it came from.
      expect(d.body).toContain(`${siteUrl}/moved`);
      expect(d.body).not.toContain('Shop');
    }
    const x = drafts.find((d) => d.platform === 'x')!;
    expect(x.kind).toBe('thread');
    expect(splitThread(x.body).length).toBeGreaterThanOrEqual(2);
    expect(drafts.find((d) => d.platform === 'linkedin')!.headline).toBe(
      'How we bake 2,000 loaves a day',
    );

    // The same URL again within a day: the same source, the page not fetched again.
    const again = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { url: `${siteUrl}/moved` },
    });
    expect(again.status).toBe(200);
    expect(again.body.source_id).toBe(res.body.source_id);
    expect(hits.get('/article')).toBe(1);
  }, 60_000);

  it('drafts a text, and repurpose takes a source and platforms', async () => {
    const text = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { text: 'We open a second bakery on Market Street next week, with the same ovens.' },
    });
    expect(text.status, JSON.stringify(text.body)).toBe(200);
    const repurposed = await client.callTool({
      name: 'repurpose',
      arguments: { source_id: text.body.source_id, platforms: ['mastodon', 'instagram'] },
    });
    expect(repurposed.isError, JSON.stringify(repurposed.content)).toBeFalsy();
    const result = repurposed.structuredContent as Record<string, any>;
    expect(result).toMatchObject({
      source_id: text.body.source_id,
      skipped_platforms: ['instagram'],
    });
    expect(result.post_ids).toHaveLength(1);
    expect((await post(result.post_ids[0])).post).toMatchObject({
      platform: 'mastodon',
      source_id: text.body.source_id,
    });
  }, 60_000);

  it('reports its stages as progress to an MCP client that asked for them', async () => {
    const res = await fetch(`${svc.server.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${svc.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'repurpose',
          arguments: { url: `${siteUrl}/slow-article`, platforms: ['linkedin'] },
          _meta: { progressToken: 'gen' },
        },
      }),
    });
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    const stages = events
      .filter((e) => e.method === 'notifications/progress')
      .map((e) => e.params.message);
    // The page answers after 800 ms: the call sees the job fetching it, then the rest.
    expect(stages).toContain('fetching');
    expect(stages.indexOf('fetching')).toBe(0);
    expect(events.at(-1)).toMatchObject({
      id: 7,
      result: { structuredContent: { post_ids: [expect.any(String)] } },
    });
  }, 60_000);

  it('answers 422 saying why a URL cannot be used, and for a bad request', async () => {
    const json = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { url: `${siteUrl}/data.json` },
    });
    expect(json.status).toBe(422);
    expect(json.body).toMatchObject({ code: 'generation_failed' });
    expect(json.body.detail).toMatch(/not an HTML page \(it is application\/json\)/);
    const empty = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { url: `${siteUrl}/empty` },
    });
    expect(empty.body.detail).toMatch(/no readable article text/);
    // Bytes that are no article, served as HTML: a 422 that says so, not "tell the operator".
    const lie = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { url: `${siteUrl}/jsonlie` },
    });
    expect(lie.status).toBe(422);
    expect(lie.body.detail).toMatch(/no readable article text|could not be read as HTML/);
    // A NUL in the page is dropped, not a database error.
    const nul = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { url: `${siteUrl}/nul` },
    });
    expect(nul.status, JSON.stringify(nul.body)).toBe(200);
    const closed = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { url: 'http://127.0.0.1:9/closed' },
    });
    expect(closed.body.detail).toMatch(/could not be fetched \(the connection was refused\)/);
    expect(closed.body.detail).not.toMatch(/ECONNREFUSED/);
    const userinfo = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { url: `http://user:secret@127.0.0.1:${new URL(siteUrl).port}/article` },
    });
    expect(userinfo.status).toBe(422);
    expect(userinfo.body.detail[0].msg).toMatch(/no user name or password/);
    const both = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { url: `${siteUrl}/article`, text: 'x' },
    });
    expect(both.status).toBe(422);
    expect(both.body.detail[0].msg).toMatch(/give exactly one of url, text/);
    const brand = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { text: 'x', brand_id: '1' },
    });
    expect(brand.status).toBe(422);
    expect(brand.body.detail[0].msg).toMatch(/unknown field/);
  }, 60_000);
});

describe('generation past GENERATE_TIMEOUT_S', () => {
  // No worker: the job waits in the queue.
  const svc = useService({
    env: { GENERATE_TIMEOUT_S: '0.3' },
    account: { scopes: ['read', 'generate'] },
  });

  it("runs one account's generations in a lane of their own", async () => {
    for (let i = 0; i < 4; i++)
      await call(svc.server, 'POST', '/v1/generate', { key: svc.key, body: { text: `Day ${i}.` } });
    const { rows } = await svc.server.pool.query<{ queue_name: string }>(
      `select distinct queue_name from graphile_worker.jobs where task_identifier = 'generate_drafts'`,
    );
    expect(rows.map((r) => r.queue_name)).toEqual([`generate:${svc.acct.accountId}:interactive`]);
    // A batch job of the same account goes to its other lane.
    const week = await call(svc.server, 'POST', '/v1/brand-memory/import', {
      key: svc.key,
      body: {},
    });
    expect(week.status).toBe(202);
    const batch = await svc.server.pool.query<{ queue_name: string }>(
      `select queue_name from graphile_worker.jobs where task_identifier = 'read_post_history'`,
    );
    expect(batch.rows.map((r) => r.queue_name)).toEqual([`generate:${svc.acct.accountId}:batch`]);
  });

  it('answers 504 with the job, which job_status then follows', async () => {
    const res = await call(svc.server, 'POST', '/v1/generate', {
      key: svc.key,
      body: { text: 'A slow day at the bakery.' },
    });
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ code: 'generation_timeout', job_id: expect.any(String) });
    const client = await connectMcp(svc.server, svc.key, 'generate-timeout');
    try {
      const job = await client.callTool({
        name: 'job_status',
        arguments: { job_id: res.body.job_id },
      });
      expect(job.structuredContent).toMatchObject({ kind: 'generation', status: 'queued' });
    } finally {
      await client.close();
    }
  });
});
