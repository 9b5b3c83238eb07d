// The posts side of the remembered-key fast path (core/auth/rememberedKeys.ts): a caller
// admitted on a key no statement has confirmed yet gets a plain draft inserted by a statement
// that confirms the key too, and KeyChanged for anything else, so that its caller looks the
// key up and calls again.
import { KeyChanged } from '../apikeys/schema.ts';
import { actorOf } from '../audit/schema.ts';
import type { Pool } from '../db/pool.ts';
import { type Principal, unconfirmedKeyOf } from '../kernel/principal.ts';
import { insertDraftAsKeyBatched, insertPost, type NewPostRow, type PostRow } from './db.ts';

type Caller = Pick<Principal, 'credential'>;

/**
 * For anything but a plain draft, which no statement here confirms a key in: throws
 * KeyChanged, before anything is checked or written, when the caller's key is unconfirmed.
 */
export function assertKeyLookedUp(caller: Caller): void {
  if (unconfirmedKeyOf(caller)) throw new KeyChanged();
}

/**
 * Inserts a plain draft (no schedule, no media) in one statement: for a caller on an
 * unconfirmed key, one that confirms the key too (shared with other such drafts under load),
 * throwing KeyChanged when it no longer holds. Undefined when the brand is not the account's.
 */
export function insertDraft(
  pool: Pool,
  caller: Caller,
  post: NewPostRow,
): Promise<PostRow | undefined> {
  const check = unconfirmedKeyOf(caller);
  return check
    ? insertDraftAsKeyBatched(pool, { post: { ...post, scheduleAt: null }, check })
    : insertPost(pool, post, actorOf(caller.credential));
}
