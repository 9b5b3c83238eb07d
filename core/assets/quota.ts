// The refusal every write over the plan's storage quota answers (uploads, chunked sessions,
// rendered pages): what the account uses and has reserved now, and what to do about it.
import type { Queryable } from '../db/pool.ts';
import { storageUse } from './db.ts';
import { tooLarge } from './spool.ts';

/**
 * A 413 saying `lead` (which bytes, against which quota), then the account's current use
 * (`usedNote` qualifies it) and reservations, then `advice`: what the caller should do.
 */
export async function quotaExceeded(
  db: Queryable,
  accountId: string,
  message: { lead: string; usedNote?: string; advice: string },
) {
  const { used, reserved } = await storageUse(db, accountId);
  return tooLarge(
    `${message.lead} (${used} used${message.usedNote ?? ''}, ${reserved} reserved by ` +
      `unfinished uploads); ${message.advice}`,
  );
}
