// The Graphile Worker job that publishes a scheduled post: one per post (job key
// `publish_post:<id>`), run at the post's time. Added and removed in the caller's transaction,
// so the row change and the job commit together; rescheduling replaces the job's time.
import type { Queryable } from '../db/pool.ts';

export const PUBLISH_POST_TASK = 'publish_post';

/** Retries for failures a connector calls retryable (network, 5xx, 429). */
export const PUBLISH_MAX_ATTEMPTS = 5;

export const publicationJobKey = (postId: string) => `${PUBLISH_POST_TASK}:${postId}`;

/** Enqueues (or moves) the publication of a post that is `scheduled`, at its time. */
export async function enqueuePublication(db: Queryable, postId: string): Promise<void> {
  await db.query(
    `select graphile_worker.add_job($1,
       json_build_object('post_id', id::text, 'scheduled_for', scheduled_for),
       run_at := scheduled_for, job_key := $2, max_attempts := $3)
     from posts where id = $4 and status = 'scheduled'`,
    [PUBLISH_POST_TASK, publicationJobKey(postId), PUBLISH_MAX_ATTEMPTS, postId],
  );
}

/** Removes a post's pending publication job (a running one finds the post changed). */
export async function cancelPublication(db: Queryable, postId: string): Promise<void> {
  await db.query('select graphile_worker.remove_job($1)', [publicationJobKey(postId)]);
}
