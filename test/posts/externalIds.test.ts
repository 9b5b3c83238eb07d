// A post is `published` only under the platform's id of it: the publication records a
// success without one as a failure that says so, the database refuses such a row, and
// migration 013 turned the rows an earlier bug left ("undefined") into failures.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertConnectedAccount } from '../../core/connections/db.ts';
import type { Connector } from '../../core/connectors/connector.ts';
import { publishScheduledPost } from '../../core/posts/publication.ts';
import { createPost } from '../../core/posts/service.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { makeAccount, type TestAccount } from '../support/server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let db: TestDatabase;
let acct: TestAccount;

beforeAll(async () => {
  db = await freshDatabase();
  acct = await makeAccount(db.pool);
  await upsertConnectedAccount(db.pool, {
    accountId: acct.accountId,
    brandId: acct.brandId,
    platform: 'mastodon',
    handle: '@brand',
  });
});
afterAll(() => db.drop());

const caller = () => ({
  accountId: acct.accountId,
  selectedBrandId: acct.brandId,
  credential: { kind: 'api_key' as const, id: '0' },
});

/** A post due in an hour, published now through `connector` by one run of the job. */
async function publishWith(connector: Connector) {
  const at = new Date(Date.now() + 3_600_000).toISOString();
  const post = await createPost(db.pool, caller(), {
    platform: 'mastodon',
    body: 'Hello',
    schedule_at: at,
  });
  const result = await publishScheduledPost(
    db.pool,
    { connectors: { mastodon: connector } },
    { post_id: post.id, scheduled_for: at, attempts_before: 0 },
    { number: 1, max: 5, signal: new AbortController().signal },
  );
  const row = (await db.pool.query('select * from posts where id = $1', [post.id])).rows[0];
  return { result, row };
}

describe('a connector reporting success without an id', () => {
  for (const externalPostId of ['', '  ', 'undefined', undefined, 42]) {
    it(`fails the post with the reason (id ${JSON.stringify(externalPostId)})`, async () => {
      const { result, row } = await publishWith({
        publish: async () => ({ externalPostId: externalPostId as string, permalinkUrl: null }),
      });
      expect(result).toBe('failed');
      expect(row).toMatchObject({ status: 'failed', external_post_id: null, published_at: null });
      expect(row.error).toBe(
        "The Mastodon connector reported success without the post's id on Mastodon; check " +
          'the account for the post before scheduling it again.',
      );
    });
  }

  it('publishes with a real id', async () => {
    const { result, row } = await publishWith({
      publish: async () => ({ externalPostId: '109', permalinkUrl: 'https://m.example/@b/109' }),
    });
    expect(result).toBe('published');
    expect(row).toMatchObject({ status: 'published', external_post_id: '109' });
  });
});

describe('the posts table', () => {
  it('refuses a published row without an external id', async () => {
    const post = await createPost(db.pool, caller(), { platform: 'mastodon', body: 'x' });
    for (const id of [null, '', ' '])
      await expect(
        db.pool.query(
          `update posts set status = 'published', external_post_id = $2 where id = $1`,
          [post.id, id],
        ),
      ).rejects.toThrow(/posts_published_has_external_id/);
  });

  it('migration 013 turned rows published without an id into failures, with audit rows', async () => {
    const good = await createPost(db.pool, caller(), { platform: 'mastodon', body: 'good' });
    const bad = await createPost(db.pool, caller(), { platform: 'mastodon', body: 'bad' });
    // The state before 013: no check, a row the old connector wrote, and the old function.
    await db.pool.query('alter table posts drop constraint posts_published_has_external_id');
    await db.pool.query(
      `create function enqueue_event_deliveries(bigint, bigint, text) returns int
       language sql as 'select 0'`,
    );
    await db.pool.query(
      `update posts set status = 'published', published_at = now(),
              external_post_id = case when id = $1 then '7' else 'undefined' end
       where id in ($1, $2)`,
      [good.id, bad.id],
    );
    await db.pool.query(
      readFileSync(path.join(ROOT, 'sql/013_deliveries_in_app_published_ids.sql'), 'utf8'),
    );
    const rows = (
      await db.pool.query(
        'select id, status, external_post_id, error from posts where id in ($1, $2) order by id',
        [good.id, bad.id],
      )
    ).rows;
    expect(rows).toEqual([
      { id: good.id, status: 'published', external_post_id: '7', error: null },
      {
        id: bad.id,
        status: 'failed',
        external_post_id: null,
        error: expect.stringMatching(/^The platform's answer carried no id of the post/),
      },
    ]);
    const audit = await db.pool.query(
      `select action, from_status, to_status, actor_kind from audit_log
       where post_id = $1 order by id desc limit 1`,
      [bad.id],
    );
    expect(audit.rows).toEqual([
      { action: 'failed', from_status: 'published', to_status: 'failed', actor_kind: 'system' },
    ]);
    const fn = await db.pool.query(`select to_regproc('enqueue_event_deliveries') as f`);
    expect(fn.rows[0].f).toBeNull();
  });
});
