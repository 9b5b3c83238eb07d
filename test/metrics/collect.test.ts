// Collecting our published posts' engagement (core/metrics/collect.ts) from a local server
// that answers Mastodon's GET /api/v1/statuses/:id as documented: counts kept as a time
// series, a post collected again only when it is due (15 minutes in its first two days, then
// 6 hours), a deleted status skipped, a platform's Retry-After honoured by queueing the
// account again after it, a revoked token marking the account for reconnection, and the cron
// fanning out one keyed job per account with recent posts.
import { beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey, sealCredentials } from '../../core/connections/credentials.ts';
import { TASK } from '../../core/jobs/tasks.ts';
import { collectAccountMetrics, startCollections } from '../../core/metrics/collect.ts';
import { collectAccountMetricsTask } from '../../workers/collectAccountMetrics.ts';
import { startJsonServer } from '../support/jsonServer.ts';
import { readingDeps } from '../support/reading.ts';
import { call, makeConnectedAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY = credentialsKey(Buffer.alloc(32, 9).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
let instanceUrl: string;
/** The instance's statuses and their counts; a missing id answers 404. */
const counts = new Map<
  string,
  { favourites_count: number; reblogs_count: number; replies_count: number }
>();
let throttled = false;
/** Answers 429 once this many statuses were read (since `reads` was last emptied). */
let throttleAfter: number | undefined;
const reads: string[] = [];

beforeAll(async () => {
  const instance = await startJsonServer((req, json) => {
    if (req.headers.authorization === 'Bearer revoked')
      return json(401, { error: 'The access token was revoked' });
    const status = /^\/api\/v1\/statuses\/(\w+)$/.exec(req.url ?? '');
    if (req.method === 'GET' && status) {
      reads.push(status[1]!);
      if (throttled || (throttleAfter !== undefined && reads.length > throttleAfter))
        return json(429, { error: 'Too many requests' }, { 'retry-after': '30' });
      const c = counts.get(status[1]!);
      return c ? json(200, { id: status[1], ...c }) : json(404, { error: 'Record not found' });
    }
    json(404, { error: 'Record not found' });
  });
  instanceUrl = instance.url;
  return instance.close;
});

const deps = () => readingDeps(server, KEY);

/** A brand connected to the instance with posts published as statuses `ids`, `hoursAgo`. */
async function brandWithPosts(ids: string[], opts: { hoursAgo?: number; token?: string } = {}) {
  const { key, connected } = await makeConnectedAccount(server.pool, 'mastodon', {
    credentials: sealCredentials(KEY, { instance: instanceUrl, access_token: opts.token ?? 'ok' }),
  });
  const posts: string[] = [];
  for (const id of ids) {
    const made = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'mastodon', body: `Status ${id}` },
    });
    // Published as the publication job records it.
    await server.pool.query(
      `update posts set status = 'published', external_post_id = $2,
         published_at = now() - make_interval(hours => $3) where id = $1`,
      [made.body.id, id, opts.hoursAgo ?? 1],
    );
    posts.push(made.body.id);
  }
  return { connectedId: String(connected.id), posts };
}

const series = async (postId: string) =>
  (
    await server.pool.query(
      'select likes, reposts, replies, quotes, views from post_metrics where post_id = $1 order by id',
      [postId],
    )
  ).rows;

/** Moves a post's collections `minutes` into the past, as if made then (series, latest, checks). */
const age = async (postId: string, minutes: number) => {
  for (const [table, column] of [
    ['post_metrics', 'collected_at'],
    ['post_metrics_latest', 'collected_at'],
    ['post_metrics_checks', 'checked_at'],
  ])
    await server.pool.query(
      `update ${table} set ${column} = ${column} - make_interval(mins => $2) where post_id = $1`,
      [postId, minutes],
    );
};

describe('collecting metrics', () => {
  it("keeps each collection's counts, and reads a post again only when it is due", async () => {
    counts.set('501', { favourites_count: 5, reblogs_count: 2, replies_count: 1 });
    const { connectedId, posts } = await brandWithPosts(['501']);
    expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
      outcome: 'read',
      posts: 1,
      counted: 1,
    });
    expect(await series(posts[0]!)).toEqual([
      { likes: 5, reposts: 2, replies: 1, quotes: null, views: null },
    ]);
    // Ten minutes on, a fresh post is not due; sixteen minutes on, it is.
    await age(posts[0]!, 10);
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({ posts: 0 });
    counts.set('501', { favourites_count: 9, reblogs_count: 3, replies_count: 4 });
    await age(posts[0]!, 6);
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({ counted: 1 });
    expect((await series(posts[0]!)).map((r) => r.likes)).toEqual([5, 9]);
  });

  it('reads a post older than two days every 6 hours, and none older than 30 days', async () => {
    counts.set('601', { favourites_count: 1, reblogs_count: 0, replies_count: 0 });
    const settled = await brandWithPosts(['601'], { hoursAgo: 72 });
    await collectAccountMetrics(deps(), settled.connectedId);
    await age(settled.posts[0]!, 60);
    expect(await collectAccountMetrics(deps(), settled.connectedId)).toMatchObject({ posts: 0 });
    await age(settled.posts[0]!, 5 * 60);
    expect(await collectAccountMetrics(deps(), settled.connectedId)).toMatchObject({ posts: 1 });

    counts.set('602', { favourites_count: 1, reblogs_count: 0, replies_count: 0 });
    const old = await brandWithPosts(['602'], { hoursAgo: 31 * 24 });
    expect(await collectAccountMetrics(deps(), old.connectedId)).toMatchObject({ posts: 0 });
  });

  it('skips a status deleted on the platform, and counts the others', async () => {
    counts.set('701', { favourites_count: 3, reblogs_count: 0, replies_count: 0 });
    const { connectedId, posts } = await brandWithPosts(['701', '702']);
    expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
      outcome: 'read',
      posts: 2,
      counted: 1,
    });
    expect(await series(posts[1]!)).toEqual([]);
  });

  it('asks for a deleted status only when it is due, so it cannot hold the live ones back', async () => {
    // 100 statuses deleted since (a run's worth), published before the one still there.
    const gone = Array.from({ length: 100 }, (_, i) => `gone${i}`);
    counts.set('live', { favourites_count: 4, reblogs_count: 0, replies_count: 0 });
    const { connectedId, posts } = await brandWithPosts([...gone, 'live']);
    expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
      outcome: 'read',
      posts: 100,
      counted: 0,
    });
    reads.length = 0;
    expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
      outcome: 'read',
      posts: 1,
      counted: 1,
    });
    expect(reads).toEqual(['live']);
    expect((await series(posts.at(-1)!)).map((r) => r.likes)).toEqual([4]);
  });

  it("honours the platform's Retry-After by queueing the account again after it", async () => {
    counts.set('801', { favourites_count: 3, reblogs_count: 0, replies_count: 0 });
    const { connectedId } = await brandWithPosts(['801']);
    throttled = true;
    try {
      expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
        outcome: 'throttled',
        retryAfterMs: 30_000,
      });
      const before = Date.now();
      const helpers = { logger: { info: () => {}, warn: () => {} } } as never;
      await collectAccountMetricsTask(deps())({ connected_account_id: connectedId }, helpers);
      const { rows } = await server.pool.query(
        'select run_at from graphile_worker.jobs where key = $1',
        [`${TASK.collectAccountMetrics}:${connectedId}`],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].run_at.getTime()).toBeGreaterThanOrEqual(before + 29_000);
      // The next cron's fan-out does not pull the waiting job forward.
      await startCollections(server.pool, deps().connectors);
      const after = await server.pool.query(
        'select run_at from graphile_worker.jobs where key = $1',
        [`${TASK.collectAccountMetrics}:${connectedId}`],
      );
      expect(after.rows.map((r) => r.run_at.getTime())).toEqual([rows[0].run_at.getTime()]);
    } finally {
      throttled = false;
    }
  });

  it('keeps what it read before a throttle, and asks at most 100 posts a run', async () => {
    const ids = Array.from({ length: 130 }, (_, i) => `run${i}`);
    for (const id of ids)
      counts.set(id, { favourites_count: 1, reblogs_count: 0, replies_count: 0 });
    const { connectedId } = await brandWithPosts(ids);
    // The instance throttles from its 30th answer on: the first chunk of 20 is kept.
    reads.length = 0;
    throttleAfter = 30;
    try {
      expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({
        outcome: 'throttled',
      });
    } finally {
      throttleAfter = undefined;
    }
    const kept = async () =>
      (
        await server.pool.query(
          `select count(*)::int as n from post_metrics m join posts p on p.id = m.post_id
           where p.external_post_id like 'run%'`,
        )
      ).rows[0].n;
    expect(await kept()).toBe(20);
    // The next run asks 100 of the 110 left, never asked first; the one after, the last 10.
    reads.length = 0;
    expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
      outcome: 'read',
      posts: 100,
      counted: 100,
    });
    expect(reads.filter((r) => Number(r.slice(3)) < 20)).toEqual([]);
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({ posts: 10 });
    expect(await kept()).toBe(130);
  });

  it('asks no further chunk once the run has used its time, leaving the rest for the next', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `slow${i}`);
    for (const id of ids)
      counts.set(id, { favourites_count: 1, reblogs_count: 0, replies_count: 0 });
    const { connectedId } = await brandWithPosts(ids);
    // A budget already spent: the first chunk is asked all the same, nothing after it.
    expect(await collectAccountMetrics(deps(), connectedId, 0)).toEqual({
      outcome: 'read',
      posts: 20,
      counted: 20,
    });
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({ posts: 30 });
  });

  it('marks an account whose token was revoked for reconnection, and reads nothing more', async () => {
    counts.set('901', { favourites_count: 3, reblogs_count: 0, replies_count: 0 });
    const { connectedId } = await brandWithPosts(['901'], { token: 'revoked' });
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({ outcome: 'skipped' });
    const { rows } = await server.pool.query(
      'select status, last_error from connected_accounts where id = $1',
      [connectedId],
    );
    expect(rows[0]).toMatchObject({ status: 'needs_reconnect' });
    expect(rows[0].last_error).toMatch(/Collecting metrics: Mastodon answered 401/);
    const readsBefore = reads.length;
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({ outcome: 'skipped' });
    expect(reads.length).toBe(readsBefore);
  });

  it('fans out one keyed job per connected account with a recent post', async () => {
    const { connectedId } = await brandWithPosts(['999']);
    await startCollections(server.pool, deps().connectors);
    await startCollections(server.pool, deps().connectors);
    const { rows } = await server.pool.query(
      'select key, queue_name from graphile_worker.jobs where key = $1',
      [`${TASK.collectAccountMetrics}:${connectedId}`],
    );
    expect(rows).toEqual([
      {
        key: `${TASK.collectAccountMetrics}:${connectedId}`,
        queue_name: `metrics:${connectedId}`,
      },
    ]);
  });
});
