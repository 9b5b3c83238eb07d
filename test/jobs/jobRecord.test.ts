// The job record (core/jobs/service.ts) as clients meet it. One account's burst of slow work
// waits its turn: past UNFINISHED_PER_ACCOUNT queued or running jobs of a kind, a start is
// refused with 429 and adds nothing (the same subject again still answers its job); finished
// poster frames are kept only the last PREVIEWS_KEPT; job_status with wait_s answers when the
// job moves on, not on every progress write.
import { describe, expect, it } from 'vitest';
import { createNotifications } from '../../core/db/notifications.ts';
import { withTransaction } from '../../core/db/pool.ts';
import { markRunning, recordProgress } from '../../core/jobs/db.ts';
import type { JobKind } from '../../core/jobs/schema.ts';
import {
  deleteOldPreviews,
  failJob,
  jobStatus,
  PREVIEWS_KEPT,
  startJob,
  UNFINISHED_PER_ACCOUNT,
} from '../../core/jobs/service.ts';
import type { DomainError } from '../../core/kernel/errors.ts';
import { makeAccount } from '../support/server.ts';
import { useServer } from '../support/service.ts';

const server = useServer();
const queued: string[] = [];
/** As the API starts a job: in a transaction of its own. */
const start = (accountId: string, kind: JobKind, subject: string) =>
  withTransaction(server.pool, (tx) =>
    startJob(tx, { accountId, kind, subject }, async (_tx, id) => {
      queued.push(id);
    }),
  );
const count = async (accountId: string, kind: JobKind) =>
  (
    await server.pool.query<{ n: number }>(
      'select count(*)::int as n from jobs where account_id = $1 and kind = $2',
      [accountId, kind],
    )
  ).rows[0]!.n;

describe('jobs per account', () => {
  it.each(['video_export', 'video_preview'] as const)(
    '%s: past the limit a start is 429 too_many_jobs and stores nothing',
    async (kind) => {
      const acct = await makeAccount(server.pool);
      const other = await makeAccount(server.pool);
      const limit = UNFINISHED_PER_ACCOUNT[kind];
      for (let i = 0; i < limit; i++) await start(acct.accountId, kind, `s${i}`);
      const before = queued.length;
      const err = (await start(acct.accountId, kind, 'one more').catch((e) => e)) as DomainError;
      expect([err.status, err.code]).toEqual([429, 'too_many_jobs']);
      expect(queued.length).toBe(before);
      expect(await count(acct.accountId, kind)).toBe(limit);
      // The same subject again answers its job; another account is not held back.
      expect((await start(acct.accountId, kind, 's0')).created).toBe(false);
      expect((await start(other.accountId, kind, 's0')).created).toBe(true);
      // Once one finishes, the next may start.
      await server.pool.query(
        `update jobs set status = 'succeeded', result = '{}', finished_at = now()
       where account_id = $1 and kind = $2 and subject = 's1'`,
        [acct.accountId, kind],
      );
      expect((await start(acct.accountId, kind, 'one more')).created).toBe(true);
    },
  );

  it('keeps only the last finished poster frames of an account', async () => {
    const acct = await makeAccount(server.pool);
    for (let i = 0; i < PREVIEWS_KEPT + 5; i++) {
      await start(acct.accountId, 'video_preview', `p${i}`);
      await server.pool.query(
        `update jobs set status = 'succeeded', result = '{"frames":[]}',
           finished_at = now() - make_interval(secs => $3)
         where account_id = $1 and subject = $2`,
        [acct.accountId, `p${i}`, 100 - i],
      );
    }
    await start(acct.accountId, 'video_preview', 'newest');
    const { rows } = await server.pool.query<{ subject: string }>(
      `select subject from jobs where account_id = $1 and status = 'succeeded' order by finished_at`,
      [acct.accountId],
    );
    expect(rows.map((r) => r.subject)).toEqual(
      Array.from({ length: PREVIEWS_KEPT }, (_, i) => `p${i + 5}`),
    );
    expect(await count(acct.accountId, 'video_preview')).toBe(PREVIEWS_KEPT + 1);
  });
});

describe('job_status with wait_s', () => {
  it('answers when the job moves on, not on every small progress write', async () => {
    const acct = await makeAccount(server.pool);
    const { job } = await start(acct.accountId, 'video_export', 'waited');
    await markRunning(server.pool, job.job_id, 1);
    const notifications = createNotifications(server.pool);
    try {
      const waiting = jobStatus({ pool: server.pool, notifications }, acct, {
        job_id: job.job_id,
        wait_s: 20,
      });
      // Let the wait subscribe and read first (it answers the same either way: see below).
      await new Promise((resolve) => setTimeout(resolve, 200));
      await recordProgress(server.pool, job.job_id, 0.02, 'rendering_overlays');
      await recordProgress(server.pool, job.job_id, 0.05, 'rendering_overlays');
      await recordProgress(server.pool, job.job_id, 0.06, 'encoding');
      // A stage change ends the wait; the small steps before it did not.
      expect(await waiting).toMatchObject({ stage: 'encoding', progress: 0.06 });
      // Another account's job is not found, waiting or not.
      const other = await makeAccount(server.pool);
      await expect(
        jobStatus({ pool: server.pool, notifications }, other, { job_id: job.job_id, wait_s: 1 }),
      ).rejects.toMatchObject({ status: 404 });
    } finally {
      await notifications.close();
    }
  });
});

describe('deleteOldPreviews', () => {
  it('deletes poster frames an hour after they were drawn, and nothing else', async () => {
    const acct = await makeAccount(server.pool);
    const insert = async (kind: string, finishedMinutesAgo: number | null) => {
      const { rows } = await server.pool.query<{ id: string }>(
        `insert into jobs (account_id, kind, subject, status, result, finished_at)
         values ($1, $2, $3, $4, $5, now() - $6 * interval '1 minute') returning id`,
        [
          acct.accountId,
          kind,
          `design:1@1:${kind}:${finishedMinutesAgo}`,
          finishedMinutesAgo === null ? 'running' : 'succeeded',
          finishedMinutesAgo === null ? null : '{"frames":[]}',
          finishedMinutesAgo,
        ],
      );
      return rows[0]!.id;
    };
    const old = await insert('video_preview', 61);
    const recent = await insert('video_preview', 30);
    const running = await insert('video_preview', null);
    const oldExport = await insert('video_export', 600);
    await deleteOldPreviews(server.pool);
    const { rows } = await server.pool.query<{ id: string }>(
      'select id from jobs where account_id = $1',
      [acct.accountId],
    );
    const left = rows.map((r) => r.id);
    expect(left).not.toContain(old);
    expect(left).toEqual(expect.arrayContaining([recent, running, oldExport]));
  });
});

describe('failJob', () => {
  it('gives back the credits a job took, once, whoever fails it', async () => {
    const acct = await makeAccount(server.pool);
    const { rows } = await server.pool.query<{ id: string }>(
      `insert into jobs (account_id, kind, subject, credits) values ($1, 'genome', 'g:1', 2)
       returning id::text`,
      [acct.accountId],
    );
    const jobId = rows[0]!.id;
    const credits = async () =>
      (await server.pool.query('select credits::int from accounts where id = $1', [acct.accountId]))
        .rows[0].credits;
    const before = await credits();
    expect(await failJob(server.pool, jobId, 'the worker died')).toBe(true);
    expect(await credits()).toBe(before + 2);
    // Failed already (the reconciler and the worker both try): nothing more.
    expect(await failJob(server.pool, jobId, 'again')).toBe(false);
    expect(await credits()).toBe(before + 2);
  });
});
