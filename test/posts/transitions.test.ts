// Status transitions take a typed patch (core/posts/db.ts): each column's value travels as its
// own parameter whatever the order of the keys, time columns take `now` or keep a set time,
// and nothing but a known column name ever reaches the SQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostPatch, transitionPost } from '../../core/posts/db.ts';
import { createPost } from '../../core/posts/service.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { makeAccount, type TestAccount } from '../support/server.ts';

let db: TestDatabase;
let acct: TestAccount;

beforeAll(async () => {
  db = await freshDatabase();
  acct = await makeAccount(db.pool);
});
afterAll(() => db.drop());

const actor = { kind: 'system' as const, id: null };

async function draft() {
  const caller = {
    accountId: acct.accountId,
    selectedBrandId: acct.brandId,
    credential: { kind: 'api_key' as const, id: '0' },
  };
  return createPost(db.pool, caller, { platform: 'linkedin', body: 'first' });
}

const apply = async (postId: string, patch: PostPatch) => {
  const result = await transitionPost(db.pool, {
    postId,
    accountId: acct.accountId,
    from: ['draft', 'rejected', 'failed'],
    patch,
    action: 'test',
    actor,
  });
  if (result.outcome !== 'done') throw new Error(result.outcome);
  return result.post;
};

describe('a transition patch', () => {
  it('writes every value to its own column, in any key order', async () => {
    const post = await draft();
    const at = '2031-02-03T04:05:06.789Z';
    const row = await apply(post.id, {
      error: 'e',
      rejection_code: 'c',
      scheduled_for: at,
      kind: 'text',
      headline: 'h',
      rejection_reason: 'r',
      hashtags: '#t',
      body: 'b',
      status: 'rejected',
    });
    expect(row).toMatchObject({
      status: 'rejected',
      body: 'b',
      hashtags: '#t',
      headline: 'h',
      kind: 'text',
      rejection_reason: 'r',
      rejection_code: 'c',
      error: 'e',
    });
    expect(row.scheduled_for?.toISOString()).toBe(at);
  });

  it('leaves out what it does not name, and sets times to now or keeps them', async () => {
    const post = await draft();
    const first = await apply(post.id, { approved_at: 'now', favorited_at: 'now_unless_set' });
    expect(first.body).toBe('first');
    expect(first.approved_at).toBeInstanceOf(Date);
    const again = await apply(post.id, { favorited_at: 'now_unless_set', approved_at: null });
    expect(again.favorited_at).toEqual(first.favorited_at);
    expect(again.approved_at).toBeNull();
  });

  it('writes only known columns: any other key is not SQL', async () => {
    const post = await draft();
    const hostile = { 'body = $1, status': 'published', body: 'kept as text' } as PostPatch;
    const row = await apply(post.id, hostile);
    expect(row).toMatchObject({ status: 'draft', body: 'kept as text' });
  });
});
