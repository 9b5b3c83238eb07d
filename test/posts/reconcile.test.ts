// The reconciler (workers/reconcile.ts, every minute): a post left `publishing` with no
// attempt to come (its worker was killed during the last attempt) fails with a reason and
// its post.failed event, while a publication that still has a job is left alone.
import { beforeAll, describe, expect, it } from 'vitest';
import { publicationJobKey, TASK } from '../../core/jobs/tasks.ts';
import { failAbandonedPublications } from '../../core/posts/publication.ts';
import { call } from '../support/server.ts';
import { type TestServer, useService } from '../support/service.ts';

const svc = useService({ account: { scopes: ['read', 'publish'] } });
let server: TestServer, key: string;
beforeAll(() => ({ server, key } = svc));

/** A scheduled post, then put where a publication leaves it: `publishing`, `ageS` ago. */
async function publishingPost(ageS: number, opts: { dropJob: boolean }) {
  const at = new Date(Date.now() + 3_600_000).toISOString();
  const res = await call(server, 'POST', '/v1/posts', {
    key,
    body: { platform: 'mastodon', body: 'Hello', schedule_at: at },
  });
  expect(res.body.status).toBe('scheduled');
  await server.pool.query(
    `update posts set status = 'publishing', updated_at = now() - $2 * interval '1 second'
     where id = $1`,
    [res.body.id, ageS],
  );
  if (opts.dropJob)
    await server.pool.query('select graphile_worker.remove_job($1)', [
      publicationJobKey(res.body.id),
    ]);
  return res.body.id as string;
}

const state = async (id: string) =>
  (
    await server.pool.query<{ status: string; error: string | null; events: string[] }>(
      `select status, error,
         array(select type from events e where e.post_id = p.id order by e.id) as events
       from posts p where id = $1`,
      [id],
    )
  ).rows[0]!;

describe('failAbandonedPublications', () => {
  it('fails a post left publishing with no job, with a reason and its event; once', async () => {
    const abandoned = await publishingPost(120, { dropJob: true });
    const stillQueued = await publishingPost(120, { dropJob: false });
    const justClaimed = await publishingPost(0, { dropJob: true });

    expect(await failAbandonedPublications(server.pool)).toBe(1);
    const failed = await state(abandoned);
    expect(failed).toMatchObject({ status: 'failed', events: ['post.failed'] });
    expect(failed.error).toMatch(/stopped during its last attempt.*schedule it again/);
    // A publication with a job to come, and one claimed a moment ago, are left alone.
    expect(await state(stillQueued)).toMatchObject({ status: 'publishing', events: [] });
    expect(await state(justClaimed)).toMatchObject({ status: 'publishing', events: [] });

    expect(await failAbandonedPublications(server.pool)).toBe(0);
    expect((await state(abandoned)).events).toEqual(['post.failed']);
    const listed = await call(server, 'GET', '/v1/posts?status_filter=failed', { key });
    expect(listed.body).toEqual([expect.objectContaining({ id: abandoned, error: failed.error })]);
  });

  it('fails a post whose job ran out of attempts and is not running', async () => {
    const id = await publishingPost(120, { dropJob: false });
    // What Graphile Worker leaves after a failed last attempt: attempts = max_attempts.
    await server.pool.query(
      `select graphile_worker.add_job($2, '{}'::json, job_key := $1,
         max_attempts := 1, run_at := now() + interval '1 hour')`,
      [publicationJobKey(id), TASK.publishPost],
    );
    const { rows } = await server.pool.query<{ id: string }>(
      'select id from graphile_worker.jobs where key = $1',
      [publicationJobKey(id)],
    );
    await server.pool.query(
      `select graphile_worker.permanently_fail_jobs(array[$1::bigint], 'killed')`,
      [rows[0]!.id],
    );
    expect(await failAbandonedPublications(server.pool)).toBe(1);
    expect((await state(id)).status).toBe('failed');
  });
});
