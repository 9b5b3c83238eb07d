// Competitor breakouts end to end on loopback: a tracked profile on a local server answering
// Mastodon's account lookup and statuses as documented, read through the brand's connected
// account; 20 ordinary posts and one far above them send exactly one competitor.breakout,
// delivered by a real worker to a real receiver with a signature that verifies; a second
// watch sends none; a post younger than 6 hours is not judged yet, nor one older than 48.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWatches, watchCompetitor } from '../../core/competitors/watch.ts';
import { credentialsKey, sealCredentials } from '../../core/connections/credentials.ts';
import { TASK } from '../../core/jobs/tasks.ts';
import { SIGNATURE_HEADER, verifySignature } from '../../core/webhooks/signature.ts';
import type { WorkerRunner } from '../../workers/index.ts';
import { startJsonServer } from '../support/jsonServer.ts';
import { readingDeps } from '../support/reading.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { call, connectPlatform, makeSignedInAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, startWorkerBeside, useServer } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const KEY = credentialsKey(Buffer.alloc(32, 3).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
let closeInstance: () => Promise<void>;
let instanceUrl: string;
let receiver: Receiver;
let worker: WorkerRunner;
const HOUR = 3_600_000;

/** The profile's statuses, newest first, as Mastodon answers them. */
let statuses: unknown[] = [];
const status = (id: number, hoursAgo: number, counts: [number, number, number], text: string) => ({
  id: String(id),
  url: `https://social.example/@rival/${id}`,
  content: `<p>${text}</p>`,
  created_at: new Date(Date.now() - hoursAgo * HOUR).toISOString(),
  favourites_count: counts[0],
  reblogs_count: counts[1],
  replies_count: counts[2],
});

beforeAll(async () => {
  const instance = await startJsonServer((req, json, url) => {
    if (req.url === '/api/v1/accounts/lookup?acct=rival%40social.example')
      return json(200, { id: '77', username: 'rival', acct: 'rival@social.example' });
    if (req.url?.startsWith('/api/v1/accounts/77/statuses')) return json(200, statuses);
    // A remote profile the instance resolves through WebFinger only when asked to.
    if (url.pathname === '/api/v2/search' && url.searchParams.get('resolve') === 'true')
      return json(200, {
        accounts: [{ id: '77', acct: url.searchParams.get('q')!.replace('impostor', 'other') }],
        statuses: [],
        hashtags: [],
      });
    json(404, { error: 'Record not found' });
  });
  instanceUrl = instance.url;
  closeInstance = instance.close;
  receiver = await startReceiver();
  worker = await startWorkerBeside(server, { credentialsKey: KEY });
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await closeInstance();
});

const deps = () => readingDeps(server, KEY);

describe('competitor breakouts', () => {
  it('sends exactly one signed competitor.breakout for a post far above the baseline', async () => {
    const { acct, cookie } = await makeSignedInAccount(server, 'plus');
    await connectPlatform(server.pool, acct, 'mastodon', {
      credentials: sealCredentials(KEY, { instance: instanceUrl, access_token: 'ok' }),
    });
    const endpoint = await call(server, 'POST', '/webhooks', {
      body: { url: receiver.url('/breakouts'), events: ['competitor.breakout'] },
      headers: { cookie },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const tracked = await call(server, 'POST', '/competitors', {
      body: { platform: 'mastodon', handle: '@rival@social.example' },
      headers: { cookie },
    });
    expect(tracked.status).toBe(201);

    // Newest first: one just posted (not judged before 6 hours), the breakout 7 hours ago
    // (engagement 100), then 20 ordinary posts (engagement 5; one at 6 does not move a median).
    statuses = [
      status(300, 1, [90, 5, 5], 'Too young to judge'),
      status(200, 7, [80, 10, 10], `Our launch went <b>viral</b> ${'!'.repeat(400)}`),
      // An old hit: older than 48 hours, a first watch does not report it as news.
      status(150, 72, [80, 10, 10], 'Last year we went viral too'),
      ...Array.from({ length: 20 }, (_, i) =>
        status(100 - i, 80 + i * 6, i === 3 ? [4, 1, 1] : [3, 1, 1], `Ordinary post ${i}`),
      ),
    ];
    expect(await watchCompetitor(deps(), tracked.body.id)).toMatchObject({ read: 23 });
    await waitFor(async () => receiver.on('/breakouts').length > 0);
    const arrived = receiver.on('/breakouts');
    expect(arrived).toHaveLength(1);
    const raw = arrived[0]!.raw;
    expect(
      verifySignature(
        raw,
        arrived[0]!.headers[SIGNATURE_HEADER.toLowerCase()] as string,
        endpoint.body.secret,
      ),
    ).toBe(true);
    const body = JSON.parse(raw.toString('utf8'));
    expect(body).toEqual({
      event: 'competitor.breakout',
      competitor: {
        brand_id: acct.brandId,
        platform: 'mastodon',
        handle: 'rival@social.example',
        permalink: 'https://social.example/@rival/200',
        likes: 80,
        reposts: 10,
        replies: 10,
        engagement: 100,
        baseline: 5,
        ratio: 20,
        caption: expect.any(String),
        posted_at: expect.any(String),
        detected_at: expect.any(String),
      },
    });
    expect(body.competitor.caption).toMatch(/^Our launch went viral !+$/);
    expect(body.competitor.caption.length).toBeLessThanOrEqual(280);

    // A second watch reports it no more; the young post is still not judged.
    expect(await watchCompetitor(deps(), tracked.body.id)).toMatchObject({ breakouts: 0 });
    const { rows } = await server.pool.query(
      `select count(*)::int as n from events where account_id = $1 and type = 'competitor.breakout'`,
      [acct.accountId],
    );
    expect(rows[0].n).toBe(1);
    // One delivery was ever queued to the endpoint: no late duplicate is on its way.
    const deliveries = await server.pool.query(
      'select count(*)::int as n from webhook_deliveries where endpoint_id = $1',
      [endpoint.body.id],
    );
    expect(deliveries.rows[0].n).toBe(1);
  });

  it('reports a post once an account: not again when the profile is removed and re-added', async () => {
    const { acct, cookie } = await makeSignedInAccount(server, 'plus');
    await connectPlatform(server.pool, acct, 'mastodon', {
      credentials: sealCredentials(KEY, { instance: instanceUrl, access_token: 'ok' }),
    });
    const track = (body: Record<string, unknown>) =>
      call(server, 'POST', '/competitors', {
        body: { platform: 'mastodon', handle: 'rival@social.example', ...body },
        headers: { cookie },
      });
    // A stricter rule of the profile's own: 20 times the baseline is not 25.
    const strict = await track({ ratio: 25, floor: 20 });
    expect(strict.body).toMatchObject({ ratio: 25, floor: 20 });
    expect(await watchCompetitor(deps(), strict.body.id)).toMatchObject({ breakouts: 0 });
    await call(server, 'DELETE', `/competitors/${strict.body.id}`, { headers: { cookie } });
    // So is a floor above the post's engagement (100).
    const high = await track({ floor: 101 });
    expect(high.body).toMatchObject({ ratio: 3, floor: 101 });
    expect(await watchCompetitor(deps(), high.body.id)).toMatchObject({ breakouts: 0 });
    await call(server, 'DELETE', `/competitors/${high.body.id}`, { headers: { cookie } });

    const first = await track({});
    expect(await watchCompetitor(deps(), first.body.id)).toMatchObject({ breakouts: 1 });
    await call(server, 'DELETE', `/competitors/${first.body.id}`, { headers: { cookie } });
    const again = await track({});
    expect(again.status).toBe(201);
    expect(await watchCompetitor(deps(), again.body.id)).toMatchObject({ read: 23, breakouts: 0 });
    // The instance numbers the same posts anew (ids are an instance's own): known by address.
    const all = statuses;
    try {
      statuses = all.map((st) => ({ ...(st as object), id: `9${(st as { id: string }).id}` }));
      // …and an item with a hidden character in its id is left out, not fatal to the page.
      statuses.push({ ...(all[5] as object), id: 'bad\u0000id' });
      expect(await watchCompetitor(deps(), again.body.id)).toMatchObject({
        read: 23,
        breakouts: 0,
      });
    } finally {
      statuses = all;
    }
    const { rows } = await server.pool.query(
      `select count(*)::int as n from events where account_id = $1 and type = 'competitor.breakout'`,
      [acct.accountId],
    );
    expect(rows[0].n).toBe(1);

    const refused = await track({ handle: 'another@social.example', ratio: 0.5 });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toMatch(/ratio/);
  });

  it('judges no post of a profile with fewer than 20 posts before it, nor for a lowered plan', async () => {
    const { acct, cookie } = await makeSignedInAccount(server, 'plus');
    await connectPlatform(server.pool, acct, 'mastodon', {
      credentials: sealCredentials(KEY, { instance: instanceUrl, access_token: 'ok' }),
    });
    const tracked = await call(server, 'POST', '/competitors', {
      body: { platform: 'mastodon', handle: 'rival@social.example' },
      headers: { cookie },
    });
    const all = statuses;
    try {
      // The hit with 19 posts before it (the old hit and 18 ordinary): no baseline of 20 yet.
      statuses = all.slice(0, 21);
      expect(await watchCompetitor(deps(), tracked.body.id)).toMatchObject({ breakouts: 0 });
      statuses = all;
      await server.pool.query("update accounts set plan = 'free' where id = $1", [acct.accountId]);
      expect(await watchCompetitor(deps(), tracked.body.id)).toEqual({
        outcome: 'skipped',
        reason: 'competitor tracking needs the plus plan',
      });
      await server.pool.query("update accounts set plan = 'plus' where id = $1", [acct.accountId]);
      expect(await watchCompetitor(deps(), tracked.body.id)).toMatchObject({ breakouts: 1 });
    } finally {
      statuses = all;
    }
  });

  it('reads a remote profile the instance resolves, and no other profile in its place', async () => {
    const { acct, cookie } = await makeSignedInAccount(server, 'plus');
    await connectPlatform(server.pool, acct, 'mastodon', {
      credentials: sealCredentials(KEY, { instance: instanceUrl, access_token: 'ok' }),
    });
    const track = async (handle: string) =>
      (
        await call(server, 'POST', '/competitors', {
          body: { platform: 'mastodon', handle },
          headers: { cookie },
        })
      ).body.id;
    expect(await watchCompetitor(deps(), await track('far@remote.example'))).toMatchObject({
      read: 23,
    });
    // The instance answers someone else for this handle: nothing is read.
    expect(await watchCompetitor(deps(), await track('impostor@remote.example'))).toMatchObject({
      read: 0,
    });
  });

  it('queues watches only of profiles its brand can read, one keyed job each', async () => {
    const { acct, cookie } = await makeSignedInAccount(server, 'plus');
    const tracked = await call(server, 'POST', '/competitors', {
      body: { platform: 'mastodon', handle: 'someone@social.example' },
      headers: { cookie },
    });
    expect(await watchCompetitor(deps(), tracked.body.id)).toEqual({
      outcome: 'skipped',
      reason: 'the brand has no connected mastodon account to read with',
    });
    const queued = async () =>
      (
        await server.pool.query('select 1 from graphile_worker.jobs where key = $1', [
          `${TASK.watchCompetitor}:${tracked.body.id}`,
        ])
      ).rowCount;
    await startWatches(server.pool, deps().connectors);
    expect(await queued()).toBe(0);
    await connectPlatform(server.pool, acct, 'mastodon', {
      credentials: sealCredentials(KEY, { instance: instanceUrl, access_token: 'ok' }),
    });
    await startWatches(server.pool, deps().connectors);
    await startWatches(server.pool, deps().connectors);
    expect(await queued()).toBe(1);
  });
});
