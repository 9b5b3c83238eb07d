// The publication steps of one attempt (PublicationSteps), kept in publication_steps so that a
// retried job of the same attempt resumes where its predecessor stopped. A step is written
// once: remembering it again keeps the first value (a retry must not forget what the platform
// was first told).
import type { PublicationSteps } from '../connectors/schema.ts';
import type { Queryable } from '../db/pool.ts';

export function publicationSteps(
  db: Queryable,
  attempt: { postId: string; publicationSeq: number },
): PublicationSteps {
  const key = [attempt.postId, attempt.publicationSeq] as const;
  return {
    async recall(step) {
      const { rows } = await db.query<{ value: string }>(
        `select value from publication_steps
         where post_id = $1 and publication_seq = $2 and step = $3`,
        [...key, step],
      );
      return rows[0]?.value;
    },
    async remember(step, value) {
      await db.query(
        `insert into publication_steps (post_id, publication_seq, step, value)
         values ($1, $2, $3, $4) on conflict do nothing`,
        [...key, step, value],
      );
    },
  };
}
