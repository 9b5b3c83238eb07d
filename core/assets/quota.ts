// The refusal every write over the plan's storage quota answers (uploads, chunked sessions,
// rendered pages, what workers make): 413 `quota_exceeded` (not `body_too_large`: the body
// may be small, the account is full), with what the account uses and has reserved now, and
// what to do about it.
import { findAccountById } from '../accounts/db.ts';
import { STORAGE_QUOTA_BYTES } from '../accounts/plans.ts';
import type { Queryable } from '../db/pool.ts';
import { DomainError } from '../errors.ts';
import { formatBytes } from '../sizes.ts';
import { insertAssetWithinQuota, type StoredAsset, storageUse } from './db.ts';

/** The refusal of bytes past the storage quota, saying `message`. */
export const overQuota = (message: string) => new DomainError(413, 'quota_exceeded', message);

/**
 * A 413 `quota_exceeded` saying `lead` (which bytes, against which quota), then the account's current use
 * (`usedNote` qualifies it) and reservations, then `advice`: what the caller should do.
 */
export async function quotaExceeded(
  db: Queryable,
  accountId: string,
  message: { lead: string; usedNote?: string; advice: string },
) {
  const { used, reserved } = await storageUse(db, accountId);
  return overQuota(
    `${message.lead} (${formatBytes(used)} used${message.usedNote ?? ''}, ${formatBytes(reserved)} reserved by ` +
      `unfinished uploads); ${message.advice}`,
  );
}

/**
 * Files bytes a worker made (a video export, a drawing's image), stored already under
 * `asset.storageKey`, as an asset within the account's plan quota; beyond it, the 413 of
 * quotaExceeded naming `what` and saying `advice`. On `tx`, so the caller's other writes
 * (its job's success) commit with it or not at all.
 */
export async function fileMadeAsset(
  tx: Queryable,
  asset: StoredAsset,
  message: { what: string; advice: string },
) {
  const account = await findAccountById(tx, asset.accountId);
  if (!account) throw new Error(`account ${asset.accountId} not found`);
  const quota = STORAGE_QUOTA_BYTES[account.plan];
  const row = await insertAssetWithinQuota(tx, asset, quota);
  if (row) return row;
  throw await quotaExceeded(tx, asset.accountId, {
    lead: `${message.what} (${formatBytes(asset.bytes)}) would exceed the storage quota of ${formatBytes(quota)}`,
    advice: message.advice,
  });
}

/**
 * Refuses, with quotaExceeded's 413, work that would make an asset for an account whose
 * quota is used up already (a drawing saved to the library): checked before the work is
 * queued, so a full account does not have it drawn only to be refused. An account with
 * room left may still be refused when the bytes are known (fileMadeAsset).
 */
export async function assertStorageLeft(db: Queryable, accountId: string, advice: string) {
  const account = await findAccountById(db, accountId);
  if (!account) throw new Error(`account ${accountId} not found`);
  const quota = STORAGE_QUOTA_BYTES[account.plan];
  const { used, reserved } = await storageUse(db, accountId);
  if (used + reserved < quota) return;
  throw await quotaExceeded(db, accountId, {
    lead: `The storage quota of ${formatBytes(quota)} is used up`,
    advice,
  });
}
