// A job's drafts are created through posts' operation, so each is checked against its platform
// as POST /v1/posts checks a post: a draft its platform would refuse fails the job with the
// reason, and nothing of the job is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../core/accounts/service.ts';
import { SYSTEM } from '../../core/audit/actor.ts';
import { withTransaction } from '../../core/db/pool.ts';
import { saveDrafts } from '../../core/generation/job.ts';
import { JobFailure } from '../../core/jobs/service.ts';
import { createJobDrafts } from '../../core/posts/service.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';

let db: TestDatabase;
let owner: { accountId: string; brandId: string; actor: typeof SYSTEM };
beforeAll(async () => {
  db = await freshDatabase();
  const { accountId, brand } = await createAccount(db.pool, {
    email: 'drafts@example.com',
    password: 'correct horse battery',
  });
  owner = { accountId, brandId: brand.id, actor: SYSTEM };
});
afterAll(() => db.drop());

const draft = (body: string) => ({
  platform: 'bluesky' as const,
  kind: 'text' as const,
  body,
  hashtags: null,
  headline: 'Loaves',
  sourceId: null,
});

const postsOf = async () =>
  (
    await db.pool.query<{ body: string; headline: string | null }>(
      'select body, headline from posts where account_id = $1 order by id',
      [owner.accountId],
    )
  ).rows;

describe("a job's drafts", () => {
  it('are created with their origin when they fit their platform', async () => {
    const ids = await withTransaction(db.pool, (tx) =>
      saveDrafts(tx, owner, [draft('Fresh loaves at dawn.')]),
    );
    expect(ids).toHaveLength(1);
    expect(await postsOf()).toEqual([{ body: 'Fresh loaves at dawn.', headline: 'Loaves' }]);
  });

  it('fail the job, writing none of them, when one is longer than its platform takes', async () => {
    const saving = withTransaction(db.pool, (tx) =>
      saveDrafts(tx, owner, [draft('Fits.'), draft('x'.repeat(301))]),
    );
    await expect(saving).rejects.toThrow(JobFailure);
    await expect(saving).rejects.toThrow(/does not fit its platform/);
    expect(await postsOf()).toHaveLength(1);
  });

  it('of a brand that is not the account’s are refused as not found, writing none of them', async () => {
    const other = await createAccount(db.pool, {
      email: 'other-drafts@example.com',
      password: 'correct horse battery',
    });
    const before = (await postsOf()).length;
    const foreign = { ...owner, brandId: other.brand.id };
    const creating = withTransaction(db.pool, (tx) =>
      createJobDrafts(tx, foreign, [draft('Not mine.')]),
    );
    await expect(creating).rejects.toThrow('Brand not found.');
    const saving = withTransaction(db.pool, (tx) => saveDrafts(tx, foreign, [draft('Not mine.')]));
    await expect(saving).rejects.toThrow(JobFailure);
    await expect(saving).rejects.toThrow('The brand was deleted before its drafts were written.');
    expect(await postsOf()).toHaveLength(before);
  });
});
