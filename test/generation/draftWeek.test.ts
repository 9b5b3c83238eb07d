// MCP draft_week with the SDK's client and a real worker: it answers a job at once; the job
// writes posts_per_day drafts a day for 7 days on each platform, each with a suggested_for
// slot of its day (the brand's posting slots), none scheduled, themes taking turns; a slot
// already suggested is not suggested again; bad input is refused with nothing queued.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/mcpClient.ts';
import { call } from '../support/server.ts';
import { useService } from '../support/service.ts';
import { followJob } from '../support/wait.ts';

const svc = useService({ account: { scopes: ['read', 'publish', 'generate'] }, worker: {} });
let client: Client;
beforeAll(async () => {
  client = await connectMcp(svc.server, svc.key, 'draft-week-test');
});
afterAll(() => client.close());

const tool = async (name: string, args: Record<string, unknown>) => {
  const res = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { text?: string }[];
    structuredContent?: any;
  };
  return { isError: res.isError, text: res.content[0]?.text ?? '', data: res.structuredContent };
};

/** Follows a job to its end through job_status. */
const finished = (jobId: string) =>
  followJob(async (wait_s) => (await tool('job_status', { job_id: jobId, wait_s })).data, {
    timeoutMs: 60_000,
    what: `job ${jobId}`,
  });

/** A date some days ahead, YYYY-MM-DD (UTC: the test brand's time zone). */
const daysAhead = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

describe('draft_week', () => {
  it('writes a week of suggested drafts per platform, nothing scheduled', async () => {
    const start = daysAhead(10);
    const started = await tool('draft_week', {
      brand_id: svc.acct.brandId,
      start_date: start,
      platforms: ['x', 'linkedin', 'instagram'],
      posts_per_day: 2,
      themes: ['Our ovens at dawn', 'Meet the bakers', 'The rye we mill'],
    });
    expect(started.isError, started.text).toBeFalsy();
    expect(started.data).toMatchObject({ kind: 'draft_week', status: 'queued' });
    const job = await finished(started.data.job_id);
    expect(job.status, job.error).toBe('succeeded');
    expect(job.result).toMatchObject({ start_date: start, skipped_platforms: ['instagram'] });
    expect(job.result.post_ids).toHaveLength(2 * 7 * 2);

    const posts = await Promise.all(
      job.result.post_ids.map(
        async (id: string) => (await tool('get_post', { post_id: id })).data.post,
      ),
    );
    for (const platform of ['x', 'linkedin']) {
      const mine = posts.filter((p) => p.platform === platform);
      expect(mine).toHaveLength(14);
      const slots = mine.map((p) => p.suggested_for).sort();
      expect(new Set(slots).size).toBe(14);
      // Two a day, on the seven days from the start, at the brand's posting slots (UTC).
      const days = new Set(slots.map((s: string) => s.slice(0, 10)));
      expect([...days].sort()).toEqual(Array.from({ length: 7 }, (_, i) => daysAhead(10 + i)));
      for (const s of slots) expect(['09:00', '12:30']).toContain(s.slice(11, 16));
    }
    expect(posts.every((p) => p.status === 'draft' && p.scheduled_for === null)).toBe(true);
    // The themes take turns.
    const x = posts.filter((p) => p.platform === 'x');
    expect(x[0].body).toContain('Our ovens at dawn');
    expect(x[1].body).toContain('Meet the bakers');
    expect(x[2].body).toContain('The rye we mill');

    // The same week again suggests the slots still free: the evening ones.
    const again = await tool('draft_week', {
      brand_id: svc.acct.brandId,
      start_date: start,
      platforms: ['x'],
      posts_per_day: 2,
      themes: ['Sunday loaves'],
    });
    const second = await finished(again.data.job_id);
    expect(second.result.post_ids).toHaveLength(7);
    const evening = await Promise.all(
      second.result.post_ids.map(
        async (id: string) => (await tool('get_post', { post_id: id })).data.post.suggested_for,
      ),
    );
    for (const s of evening) expect(s.slice(11, 16)).toBe('17:00');
  }, 120_000);

  it('never suggests one slot twice, even for two weeks drafted at once', async () => {
    const args = {
      brand_id: svc.acct.brandId,
      start_date: daysAhead(60),
      platforms: ['mastodon'],
      posts_per_day: 3,
      themes: ['Bread', 'Buns'],
    };
    const [a, b] = await Promise.all([tool('draft_week', args), tool('draft_week', args)]);
    const jobs = await Promise.all([finished(a.data.job_id), finished(b.data.job_id)]);
    const ids = jobs.flatMap((j) => j.result.post_ids as string[]);
    // Three slots a day for seven days: 21 in all, split between the two, none twice.
    expect(ids).toHaveLength(21);
    const slots = await Promise.all(
      ids.map(async (id) => (await tool('get_post', { post_id: id })).data.post.suggested_for),
    );
    expect(new Set(slots).size).toBe(21);
  }, 120_000);

  it("takes the memory's pillars when given no themes, and refuses what cannot be drafted", async () => {
    const none = await tool('draft_week', {
      brand_id: svc.acct.brandId,
      start_date: daysAhead(30),
    });
    expect(none.text).toMatch(/give themes or source_ids, or add content pillars/);
    const both = await tool('draft_week', {
      brand_id: svc.acct.brandId,
      themes: ['a'],
      source_ids: ['1'],
    }).catch((e: Error) => ({ text: e.message }));
    expect(both.text).toMatch(/themes or source_ids, not both/);
    const foreign = await tool('draft_week', {
      brand_id: svc.acct.brandId,
      source_ids: ['999999'],
    });
    expect(foreign.text).toMatch(/source_ids\.0: no source 999999 of yours/);

    const memory = await call(svc.server, 'PATCH', '/v1/brand-memory', {
      key: svc.key,
      body: {
        expected_version: 1,
        ops: [{ op: 'add', path: '/pillars', value: [{ name: 'Seasonal bakes' }] }],
      },
    });
    expect(memory.status).toBe(200);
    const pillars = await tool('draft_week', {
      brand_id: svc.acct.brandId,
      start_date: daysAhead(40),
      platforms: ['bluesky'],
    });
    const job = await finished(pillars.data.job_id);
    expect(job.result.post_ids).toHaveLength(7);
    const first = (await tool('get_post', { post_id: job.result.post_ids[0] })).data.post;
    expect(first.body).toContain('Seasonal bakes');
  }, 120_000);
});
