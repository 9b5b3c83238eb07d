// The publication steps of one attempt (PublicationSteps), kept in publication_steps so that a
// retried job of the same attempt resumes where its predecessor stopped. A step is written
// once: remembering it again keeps the first value (a retry must not forget what the platform
// was first told).
import type { PublicationSteps } from '../connectors/schema.ts';
import type { Queryable } from '../db/pool.ts';
import { recallPublicationStep, rememberPublicationStep } from './db.ts';

export function publicationSteps(
  db: Queryable,
  attempt: { postId: string; publicationSeq: number },
): PublicationSteps {
  return {
    recall: (step) => recallPublicationStep(db, attempt, step),
    remember: (step, value) => rememberPublicationStep(db, attempt, step, value),
  };
}
