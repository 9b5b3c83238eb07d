// The refusal every write over the plan's storage quota answers (uploads, chunked sessions,
// rendered pages, what workers make): 413 `quota_exceeded` (not `body_too_large`: the body
// may be small, the account is full), with what the account uses and has reserved now, and
// what to do about it.
import { storageQuotaOf } from '../accounts/service.ts';
import type { Queryable } from '../db/pool.ts';
import { DomainError } from '../kernel/errors.ts';
import { formatBytes } from '../kernel/sizes.ts';
import { firstUploadExpiry, insertAssetWithinQuota, type StoredAsset, storageUse } from './db.ts';

/** The refusal of bytes past the storage quota, saying `message`. */
export const overQuota = (message: string) => new DomainError('quota_exceeded', message);

/** What fills an account's quota, and so what to do: the advice of quotaExceeded. */
export type QuotaMessage = {
  /** Which bytes, against which quota. */
  lead: string;
  /** Qualifies the bytes used (`, the current pages included`). */
  usedNote?: string;
  /** What to do once room is made (`export again`); by default the refused request, first. */
  retry?: string;
};

/**
 * A 413 `quota_exceeded` saying `lead`, then the account's current use and reservations, then
 * what frees room: deleting assets for the bytes used, and for the bytes reserved by chunked
 * uploads, finishing them or letting them expire (no route cancels one).
 */
export async function quotaExceeded(db: Queryable, accountId: string, message: QuotaMessage) {
  const { used, reserved } = await storageUse(db, accountId);
  const advice = await quotaAdvice(db, accountId, { used, reserved }, message.retry);
  return overQuota(
    `${message.lead} (${formatBytes(used)} used${message.usedNote ?? ''}, ${formatBytes(reserved)} reserved by ` +
      `unfinished uploads); ${advice}`,
  );
}

async function quotaAdvice(
  db: Queryable,
  accountId: string,
  use: { used: number; reserved: number },
  retry: string | undefined,
): Promise<string> {
  if (use.reserved === 0)
    return use.used === 0
      ? "nothing is stored or reserved: this alone is larger than the plan's whole quota."
      : `delete assets${retry ? `, then ${retry}` : ' first'}.`;
  const expiry = await firstUploadExpiry(db, accountId);
  // The cleanup cron (workers/cleanupUploads.ts) runs at half past every hour.
  const uploads =
    'finish the unfinished chunked uploads (POST /v1/assets/upload/finish) or let them expire ' +
    `(a session expires a day after its upload/init${expiry ? `, your first at ${expiry.toISOString()}` : ''}, ` +
    'and the cleanup at half past the hour after that gives its reservation back)';
  return `${use.used === 0 ? uploads : `delete assets, or ${uploads}`}, then ${retry ?? 'try again'}.`;
}

/**
 * Files bytes a worker made (a video export, a drawing's image), stored already under
 * `asset.storageKey`, as an asset within the account's plan quota; beyond it, the 413 of
 * quotaExceeded naming `what`, to be made again (`retry`) once there is room. On `tx`, so the caller's other writes
 * (its job's success) commit with it or not at all.
 */
export async function fileMadeAsset(
  tx: Queryable,
  asset: StoredAsset,
  message: { what: string; retry: string },
) {
  const quota = await storageQuotaOf(tx, asset.accountId);
  const row = await insertAssetWithinQuota(tx, asset, quota);
  if (row) return row;
  throw await quotaExceeded(tx, asset.accountId, {
    lead: `${message.what} (${formatBytes(asset.bytes)}) would exceed the storage quota of ${formatBytes(quota)}`,
    retry: message.retry,
  });
}

/**
 * Refuses, with quotaExceeded's 413, work that would make an asset for an account whose
 * quota is used up already (a drawing saved to the library): checked before the work is
 * queued, so a full account does not have it drawn only to be refused. An account with
 * room left may still be refused when the bytes are known (fileMadeAsset).
 */
export async function assertStorageLeft(db: Queryable, accountId: string, retry: string) {
  const quota = await storageQuotaOf(db, accountId);
  const { used, reserved } = await storageUse(db, accountId);
  if (used + reserved < quota) return;
  throw await quotaExceeded(db, accountId, {
    lead: `The storage quota of ${formatBytes(quota)} is used up`,
    retry,
  });
}
