// The post state machine of CONTRACT.md ("Post statuses"), through the domain operations that
// REST, GraphQL and MCP share: every operation from every status, jobs moved with the row,
// the next free slot, and the audit log.
import { beforeAll, describe, expect, it } from 'vitest';
import { insertAsset } from '../../core/assets/db.ts';
import { createBrand } from '../../core/brands/service.ts';
import { POST_STATUSES, type PostStatus } from '../../core/posts/schema.ts';
import {
  ALLOWED_FROM,
  actionsOf,
  approvePost,
  type Caller,
  createPost,
  favoritePost,
  rejectPost,
  schedulePost,
  unschedulePost,
  updatePost,
} from '../../core/posts/service.ts';
import { makeAccount } from '../support/server.ts';
import { type TestAccount, type TestServer, useService } from '../support/service.ts';

const svc = useService({ account: { plan: 'plus' } });
let server: TestServer, owner: TestAccount;
let caller: Caller;

beforeAll(() => {
  ({ server, acct: owner } = svc);
  caller = {
    accountId: owner.accountId,
    selectedBrandId: owner.brandId,
    credential: { kind: 'api_key', id: '7' },
  };
});

const hourAhead = () => new Date(Date.now() + 3_600_000).toISOString();

async function postIn(status: PostStatus, platform: 'x' | 'mastodon' = 'x') {
  const post = await createPost(server.pool, caller, { platform, body: `in ${status}` });
  await server.pool.query(
    `update posts set status = $2, scheduled_for = case when $2 = 'scheduled' then now() + interval '1 day' end,
                      external_post_id = case when $2 = 'published' then 'p' || id end
     where id = $1`,
    [post.id, status],
  );
  return post.id;
}

const statusOf = async (id: string) =>
  (await server.pool.query('select status from posts where id = $1', [id])).rows[0].status;
const jobOf = async (id: string) =>
  (
    await server.pool.query('select run_at from graphile_worker.jobs where key = $1', [
      `publish_post:${id}`,
    ])
  ).rows[0];

const OPERATIONS = {
  approve: { run: (id: string) => approvePost(server.pool, caller, id), to: 'approved' },
  reject: {
    run: (id: string) => rejectPost(server.pool, caller, id, { reason: 'no' }),
    to: 'rejected',
  },
  schedule: {
    run: (id: string) => schedulePost(server.pool, caller, id, { when: hourAhead() }),
    to: 'scheduled',
  },
  unschedule: { run: (id: string) => unschedulePost(server.pool, caller, id), to: 'approved' },
  update: {
    run: (id: string) => updatePost(server.pool, caller, id, { body: 'edited' }),
    to: 'draft',
  },
} as const;

describe('every operation from every status', () => {
  const cases = Object.entries(OPERATIONS).flatMap(([op, spec]) =>
    POST_STATUSES.map((from) => ({
      op,
      from,
      spec,
      allowed: (ALLOWED_FROM[op as keyof typeof ALLOWED_FROM] as readonly string[]).includes(from),
    })),
  );

  it.each(cases)('$op from $from (allowed: $allowed)', async ({ from, spec, allowed }) => {
    const id = await postIn(from);
    if (allowed) {
      const post = await spec.run(id);
      expect(post.status).toBe(spec.to);
      expect(await statusOf(id)).toBe(spec.to);
    } else {
      await expect(spec.run(id)).rejects.toMatchObject({
        status: 409,
        code: 'invalid_status',
        extra: { status: from },
      });
      expect(await statusOf(id)).toBe(from);
    }
  });

  it('matches the table of CONTRACT.md', () => {
    expect(ALLOWED_FROM).toMatchObject({
      approve: ['draft', 'rejected'],
      reject: ['draft', 'approved', 'rejected', 'scheduled', 'failed'],
      unschedule: ['scheduled'],
      update: ['draft', 'approved', 'rejected', 'scheduled', 'failed'],
    });
    expect([...ALLOWED_FROM.schedule].sort()).toEqual([
      'approved',
      'draft',
      'failed',
      'rejected',
      'scheduled',
    ]);
  });

  it("lists as a status's actions exactly the operations that may start from it", () => {
    expect(actionsOf('draft')).toEqual(['approve', 'reject', 'schedule', 'update', 'favorite']);
    expect(actionsOf('scheduled')).toEqual([
      'reject',
      'schedule',
      'unschedule',
      'update',
      'favorite',
    ]);
    expect(actionsOf('publishing')).toEqual(['favorite']);
    for (const status of POST_STATUSES)
      for (const [op, from] of Object.entries(ALLOWED_FROM))
        expect(actionsOf(status).includes(op as never), `${op} from ${status}`).toBe(
          (from as readonly string[]).includes(status),
        );
  });

  it("answers 404 for another account's post", async () => {
    const id = await postIn('draft');
    const stranger = await makeAccount(server.pool);
    const theirs: Caller = {
      accountId: stranger.accountId,
      selectedBrandId: stranger.brandId,
      credential: { kind: 'api_key', id: '8' },
    };
    for (const run of [
      () => approvePost(server.pool, theirs, id),
      () => schedulePost(server.pool, theirs, id, {}),
      () => updatePost(server.pool, theirs, id, { body: 'hijack' }),
      () => favoritePost(server.pool, theirs, id),
    ])
      await expect(run()).rejects.toMatchObject({ status: 404 });
    expect(await statusOf(id)).toBe('draft');
  });
});

describe('jobs follow the row', () => {
  it('schedule adds one job at the time; rescheduling moves it; unschedule removes it', async () => {
    const id = await postIn('draft');
    const first = hourAhead();
    await schedulePost(server.pool, caller, id, { when: first });
    expect((await jobOf(id)).run_at.toISOString()).toBe(first);
    const second = new Date(Date.now() + 7_200_000).toISOString();
    await schedulePost(server.pool, caller, id, { when: second });
    expect((await jobOf(id)).run_at.toISOString()).toBe(second);
    const { rows } = await server.pool.query(
      'select count(*)::int as n from graphile_worker.jobs where key = $1',
      [`publish_post:${id}`],
    );
    expect(rows[0].n).toBe(1);
    await unschedulePost(server.pool, caller, id);
    expect(await jobOf(id)).toBeUndefined();
  });

  it('editing a scheduled post returns it to draft and removes its job', async () => {
    const id = await postIn('draft');
    await schedulePost(server.pool, caller, id, { when: hourAhead() });
    const edited = await updatePost(server.pool, caller, id, {
      body: 'new copy',
      hashtags: '#new',
    });
    expect(edited).toMatchObject({
      status: 'draft',
      body: 'new copy',
      hashtags: '#new',
      scheduled_for: null,
      approved_at: null,
    });
    expect(await jobOf(id)).toBeUndefined();
  });

  it('a past or malformed time is refused and changes nothing', async () => {
    const id = await postIn('draft');
    await expect(
      schedulePost(server.pool, caller, id, { when: new Date(Date.now() - 60_000).toISOString() }),
    ).rejects.toMatchObject({ status: 422 });
    expect(await statusOf(id)).toBe('draft');
    expect(await jobOf(id)).toBeUndefined();
  });

  it('schedule approves the post; unschedule leaves it approved', async () => {
    const id = await postIn('draft');
    const scheduled = await schedulePost(server.pool, caller, id, { when: hourAhead() });
    expect(scheduled.approved_at).not.toBeNull();
    const back = await unschedulePost(server.pool, caller, id);
    expect(back).toMatchObject({ status: 'approved', scheduled_for: null });
  });
});

describe('update', () => {
  it('re-checks the platform capabilities and refuses what does not fit', async () => {
    const id = await postIn('draft');
    await expect(
      updatePost(server.pool, caller, id, { body: 'y'.repeat(281) }),
    ).rejects.toMatchObject({ status: 422 });
    const row = (await server.pool.query('select body from posts where id = $1', [id])).rows[0];
    expect(row.body).toBe('in draft');
  });

  it('replaces attachments and infers the kind from them', async () => {
    const id = await postIn('draft', 'mastodon');
    const img = await insertAsset(server.pool, {
      accountId: owner.accountId,
      kind: 'image',
      mime: 'image/png',
    });
    const post = await updatePost(server.pool, caller, id, { asset_ids: [img.id] });
    expect(post).toMatchObject({ asset_ids: [img.id], kind: 'image' });
    const cleared = await updatePost(server.pool, caller, id, { asset_ids: [] });
    expect(cleared).toMatchObject({ asset_ids: [], kind: 'text' });
  });
});

/** The default slots of a UTC brand strictly after `after`, for the next few days. */
function utcSlotsAfter(after: Date, offsetHours = 0): string[] {
  const out: string[] = [];
  for (let day = -1; day < 5; day++) {
    for (const [h, m] of [
      [9, 0],
      [12, 30],
      [17, 0],
    ] as const) {
      const d = new Date(
        Date.UTC(
          after.getUTCFullYear(),
          after.getUTCMonth(),
          after.getUTCDate() + day,
          h - offsetHours,
          m,
        ),
      );
      if (d > after) out.push(d.toISOString());
    }
  }
  return out.sort();
}

describe('next free slot', () => {
  it('takes the earliest future slot no scheduled post of the brand and platform holds', async () => {
    const brand = await createBrand(server.pool, owner.accountId, { name: 'Slots' });
    const me: Caller = { ...caller, selectedBrandId: brand.id };
    const now = new Date();
    const expected = utcSlotsAfter(now);
    const a = await createPost(server.pool, me, { platform: 'x', body: 'a' });
    const b = await createPost(server.pool, me, { platform: 'x', body: 'b' });
    const other = await createPost(server.pool, me, { platform: 'mastodon', body: 'c' });
    expect((await schedulePost(server.pool, me, a.id, {})).scheduled_for).toBe(expected[0]);
    expect((await schedulePost(server.pool, me, b.id, {})).scheduled_for).toBe(expected[1]);
    // Another platform has its own slots.
    expect((await schedulePost(server.pool, me, other.id, {})).scheduled_for).toBe(expected[0]);
    // Unscheduling frees the slot.
    await unschedulePost(server.pool, me, a.id);
    const c = await createPost(server.pool, me, { platform: 'x', body: 'c' });
    expect((await schedulePost(server.pool, me, c.id, {})).scheduled_for).toBe(expected[0]);
  });

  it("uses the brand's time zone", async () => {
    const brand = await createBrand(server.pool, owner.accountId, {
      name: 'Tokyo',
      timezone: 'Asia/Tokyo',
    });
    const me: Caller = { ...caller, selectedBrandId: brand.id };
    const post = await createPost(server.pool, me, { platform: 'x', body: 'konnichiwa' });
    const scheduled = await schedulePost(server.pool, me, post.id, {});
    // Tokyo is UTC+9 all year: 09:00, 12:30 and 17:00 there are 00:00, 03:30 and 08:00 UTC.
    expect(scheduled.scheduled_for).toBe(utcSlotsAfter(new Date(), 9)[0]);
  });

  it('gives concurrent calls different slots', async () => {
    const brand = await createBrand(server.pool, owner.accountId, { name: 'Busy' });
    const me: Caller = { ...caller, selectedBrandId: brand.id };
    const posts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        createPost(server.pool, me, { platform: 'x', body: `p${i}` }),
      ),
    );
    const now = new Date();
    const scheduled = await Promise.all(posts.map((p) => schedulePost(server.pool, me, p.id, {})));
    const times = scheduled.map((p) => p.scheduled_for!).sort();
    expect(new Set(times).size).toBe(8);
    expect(times).toEqual(utcSlotsAfter(now).slice(0, 8));
  });
});

describe('audit log', () => {
  it('records every transition with its actor', async () => {
    const id = await postIn('draft');
    await approvePost(server.pool, caller, id);
    await schedulePost(server.pool, caller, id, { when: hourAhead() });
    await unschedulePost(server.pool, caller, id);
    await rejectPost(server.pool, caller, id, { reason: 'late', code: 'timing' });
    const { rows } = await server.pool.query(
      `select action, from_status, to_status, actor_kind, actor_id, detail from audit_log
       where post_id = $1 and action <> 'create' order by id`,
      [id],
    );
    expect(rows.map((r) => [r.action, r.from_status, r.to_status])).toEqual([
      ['approve', 'draft', 'approved'],
      ['schedule', 'approved', 'scheduled'],
      ['unschedule', 'scheduled', 'approved'],
      ['reject', 'approved', 'rejected'],
    ]);
    expect(rows.every((r) => r.actor_kind === 'api_key' && r.actor_id === '7')).toBe(true);
    expect(rows[3].detail).toEqual({ reason: 'late', code: 'timing' });
  });
});
