// get_analytics and get_best_times through the MCP SDK's client, over metrics as a
// collection stores them (insertMetrics): totals, the per-day series in the brand's time
// zone and the top posts of a range; best hours ranked by the median engagement of the
// brand's own posts, and default slots below 20 posts; another account's brand not found.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertMetrics } from '../../core/metrics/db.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { type TestAccount, type TestServer, useService } from '../support/service.ts';

const svc = useService({ account: { scopes: ['read', 'publish'] } });
let server: TestServer, acct: TestAccount, key: string, client: Client;
const clients: Client[] = [];
beforeAll(async () => {
  ({ server, acct, key } = svc);
  client = await connectMcp(server, key, 'insight-test');
  clients.push(client);
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

async function tool(name: string, args: Record<string, unknown>, c = client) {
  const res = (await c.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { text?: string }[];
    structuredContent?: any;
  };
  return { isError: res.isError, text: res.content[0]?.text ?? '', data: res.structuredContent };
}

/** A published post of the brand at `at`, with one collection of `likes` (and 1 reply). */
async function published(
  brandId: string,
  at: string,
  likes: number | null,
  opts: { platform?: string; k?: string } = {},
) {
  const made = await call(server, 'POST', '/v1/posts', {
    key: opts.k ?? key,
    body: { platform: opts.platform ?? 'mastodon', body: `Post at ${at}`, brand_id: brandId },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  await server.pool.query(
    `update posts set status = 'published', external_post_id = id::text, published_at = $2,
       permalink_url = 'https://social.example/' || id where id = $1`,
    [made.body.id, at],
  );
  if (likes !== null)
    await insertMetrics(server.pool, [
      {
        postId: made.body.id,
        counts: { likes, reposts: 0, replies: 1, quotes: null, views: null },
      },
    ]);
  return made.body.id as string;
}

describe('get_analytics', () => {
  it('totals, a per-day series in the brand time zone and the top posts of a range', async () => {
    const brand = await server.pool.query(
      `insert into brands (account_id, name, timezone) values ($1, 'Tokyo', 'Asia/Tokyo')
       returning id::text`,
      [acct.accountId],
    );
    const b = brand.rows[0].id;
    // 23:30 UTC on the 1st is the 2nd in Tokyo.
    const late = await published(b, '2026-10-01T23:30:00Z', 10);
    await published(b, '2026-10-02T01:00:00Z', 4);
    const quiet = await published(b, '2026-10-05T09:00:00Z', null);
    await published(b, '2026-09-01T09:00:00Z', 99); // outside the range
    await published(b, '2026-10-03T09:00:00Z', 50, { platform: 'bluesky' });
    // A later collection replaces a post's counts: the latest one is what counts.
    await insertMetrics(server.pool, [
      { postId: late, counts: { likes: 12, reposts: 2, replies: 1, quotes: 1, views: null } },
    ]);

    const out = await tool('get_analytics', {
      brand_id: b,
      platform: 'mastodon',
      from: '2026-10-01T00:00:00Z',
      to: '2026-10-31T00:00:00Z',
    });
    expect(out.isError, out.text).toBeFalsy();
    expect(out.data.totals).toEqual({
      posts: 3,
      likes: 16,
      reposts: 2,
      replies: 2,
      engagement: 12 + 2 + 1 + 1 + 4 + 1,
    });
    expect(out.data.days).toEqual([
      { day: '2026-10-02', posts: 2, likes: 16, reposts: 2, replies: 2, engagement: 21 },
      { day: '2026-10-05', posts: 1, likes: 0, reposts: 0, replies: 0, engagement: 0 },
    ]);
    expect(out.data.top_posts.map((p: { post_id: string }) => p.post_id)[0]).toBe(late);
    expect(out.data.top_posts.at(-1)).toMatchObject({ post_id: quiet, engagement: 0 });
    expect(out.data.top_posts[0].permalink_url).toMatch(/^https:\/\/social\.example\//);
    expect(out.data.collected_at).toEqual(expect.any(String));

    const all = await tool('get_analytics', {
      brand_id: b,
      from: '2026-10-01T00:00:00Z',
      to: '2026-10-31T00:00:00Z',
    });
    expect(all.data.totals.posts).toBe(4);
  });

  it('refuses a range backwards or over a year, and another account brand', async () => {
    const backwards = await tool('get_analytics', {
      from: '2026-10-02T00:00:00Z',
      to: '2026-10-01T00:00:00Z',
    });
    expect(backwards.text).toMatch(/^validation_failed: from: must be before `to`/);
    const long = await tool('get_analytics', {
      from: '2024-01-01T00:00:00Z',
      to: '2026-01-01T00:00:00Z',
    });
    expect(long.text).toMatch(/at most 366 days/);
    const other = await makeAccount(server.pool);
    const c = await connectMcp(server, await makeKey(server.pool, other.accountId), 'other');
    clients.push(c);
    for (const name of ['get_analytics', 'get_best_times'])
      expect((await tool(name, { brand_id: acct.brandId }, c)).text).toMatch(/^not_found: /);
  });
});

describe('get_best_times', () => {
  it('ranks hours of the week by the median engagement of the brand posts', async () => {
    const b = acct.brandId; // UTC
    // Engagement is likes + 1 reply. Fridays 17:00 have a median of 51, one outlier (901)
    // not moving it; Tuesdays 09:00, 31; Wednesdays 12:00, 11; Sundays 22:00, 3.
    const tuesdays = ['2026-10-06', '2026-10-13', '2026-10-20', '2026-10-27', '2026-11-03'];
    const wednesdays = ['2026-10-07', '2026-10-14', '2026-10-21', '2026-10-28', '2026-11-04'];
    const fridays = ['2026-10-02', '2026-10-09', '2026-10-16', '2026-10-23', '2026-10-30'];
    const sundays = ['2026-10-04', '2026-10-11', '2026-10-18', '2026-10-25', '2026-11-01'];
    for (const d of tuesdays) await published(b, `${d}T09:00:00Z`, 30);
    for (const [i, d] of fridays.entries()) await published(b, `${d}T17:00:00Z`, i ? 50 : 900);
    for (const d of sundays) await published(b, `${d}T22:00:00Z`, 2);
    for (const d of wednesdays) await published(b, `${d}T12:00:00Z`, 10);
    const out = await tool('get_best_times', { brand_id: b, platform: 'mastodon' });
    expect(out.isError, out.text).toBeFalsy();
    expect(out.data).toMatchObject({ basis: 'own', timezone: 'UTC', posts: 20 });
    expect(out.data.slots[0]).toEqual({
      day: 'friday',
      hour: 17,
      median_engagement: 51,
      samples: 5,
    });
    const tuesday = out.data.slots.find((s: { day: string; hour: number }) => s.day === 'tuesday');
    expect(tuesday).toEqual({ day: 'tuesday', hour: 9, median_engagement: 31, samples: 5 });
    expect(out.data.slots.map((s: { day: string; hour: number }) => `${s.day} ${s.hour}`)).toEqual([
      'friday 17',
      'tuesday 9',
      'wednesday 12',
      'sunday 22',
    ]);
    expect(out.data.slots.at(-1)).toMatchObject({ median_engagement: 3 });
  });

  it("reads hours in the brand's time zone, and ranks a lone lucky post after real patterns", async () => {
    const brand = await server.pool.query(
      `insert into brands (account_id, name, timezone) values ($1, 'NY', 'America/New_York')
       returning id::text`,
      [acct.accountId],
    );
    const b = brand.rows[0].id;
    // 14:xx UTC on October Tuesdays is 10:xx in New York (daylight time).
    for (const d of ['06', '13', '20', '27'])
      for (let m = 0; m < 5; m++) await published(b, `2026-10-${d}T14:${10 + m}:00Z`, 7);
    // 03:30 UTC on a Wednesday is Tuesday 23:30 there: one post, however good, is no pattern.
    await published(b, '2026-10-07T03:30:00Z', 999);
    // A post of the last day is still gathering engagement: left out.
    await published(b, new Date(Date.now() - 3_600_000).toISOString(), 5_000);
    const out = await tool('get_best_times', { brand_id: b });
    expect(out.data).toMatchObject({ basis: 'own', timezone: 'America/New_York', posts: 21 });
    expect(out.data.slots).toEqual([
      { day: 'tuesday', hour: 10, median_engagement: 8, samples: 20 },
      { day: 'tuesday', hour: 23, median_engagement: 1000, samples: 1 },
    ]);
  });

  it('answers default slots while a brand has under 20 posts with metrics', async () => {
    const brand = await server.pool.query(
      `insert into brands (account_id, name) values ($1, 'New') returning id::text`,
      [acct.accountId],
    );
    for (let i = 0; i < 19; i++)
      await published(brand.rows[0].id, `2026-10-0${(i % 9) + 1}T10:00:00Z`, 5);
    const out = await tool('get_best_times', { brand_id: brand.rows[0].id });
    expect(out.data).toMatchObject({ basis: 'default', posts: 19 });
    expect(out.data.slots[0]).toEqual({
      day: 'tuesday',
      hour: 9,
      median_engagement: null,
      samples: 0,
    });
  });
});
