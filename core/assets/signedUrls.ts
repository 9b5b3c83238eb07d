// Signed, expiring addresses for an asset's bytes (or a drawing export's file): whoever holds
// one may fetch the bytes until it expires, without a credential (for an <img> tag, a
// preview, a platform that pulls media). The signed subject names what is served: an asset
// id is digits, an export `drawing-export:<job id>`, a video preview's frame
// `video-frame:<job id>:<index>`, an asset for a platform to pull `platform-media:<asset id>`,
// so one never passes for another.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a signed address stays valid. */
export const SIGNED_URL_TTL_S = 3600;

/**
 * How long an address handed to a platform that fetches media stays valid: a day, as long as
 * a Meta container made from it can still be published.
 */
export const PUBLIC_MEDIA_TTL_S = 86_400;

/** How a platform pull's subject starts: it both builds the subject and picks its TTL. */
const PLATFORM_MEDIA = 'platform-media:';

/** What a platform pull's address signs: apart from the asset's own one-hour subject. */
export const platformMediaSubject = (assetId: string) => `${PLATFORM_MEDIA}${assetId}`;

/** Each subject's longest life: only platform pulls live a day. */
const ttlOf = (subject: string) =>
  subject.startsWith(PLATFORM_MEDIA) ? PUBLIC_MEDIA_TTL_S : SIGNED_URL_TTL_S;

/**
 * How far another API process's clock may run ahead of ours. An `expires` beyond our TTL plus
 * this was not made by us: only a forger would sign an address for ten years.
 */
export const CLOCK_SKEW_S = 60;

/**
 * The key that signs asset addresses, derived from the media-URL secret (MEDIA_URL_SECRET or
 * DATA_DIR/secrets.json), which serves no other purpose.
 */
export const assetUrlKey = (mediaUrlSecret: string): Buffer =>
  createHmac('sha256', mediaUrlSecret).update('asset-urls/v1').digest();

const signature = (key: Buffer, subject: string, expires: number) =>
  createHmac('sha256', key).update(`${subject}.${expires}`).digest('base64url');

/** An address of `path` signed for `subject`, expiring within its TTL (sooner with `until`). */
function signed(
  base: string,
  path: string,
  key: Buffer,
  subject: string,
  now: number,
  until?: Date,
) {
  const ttlEnd = Math.floor(now / 1000) + ttlOf(subject);
  const expires = until ? Math.min(ttlEnd, Math.floor(until.getTime() / 1000)) : ttlEnd;
  return {
    url: `${base}${path}?expires=${expires}&sig=${signature(key, subject, expires)}`,
    expires: new Date(expires * 1000),
  };
}

export const signAssetUrl = (base: string, key: Buffer, assetId: string, now = Date.now()) =>
  signed(base, `/media/${assetId}`, key, assetId, now).url;

/** What a drawing export's address signs (its job's id). */
export const drawingExportSubject = (jobId: string) => `drawing-export:${jobId}`;

/** A drawing export's address, expiring within the TTL and by `until` (the file's deletion). */
export const signDrawingExportUrl = (
  base: string,
  key: Buffer,
  jobId: string,
  until: Date,
  now = Date.now(),
) => signed(base, `/media/drawing-exports/${jobId}`, key, drawingExportSubject(jobId), now, until);

/**
 * Whether `sig` signs `subject` (an asset id, drawingExportSubject, ...) until `expires`, an
 * expiry no further ahead than that subject's TTL.
 */
export function verifySignedSubject(
  key: Buffer,
  subject: string,
  expires: number,
  sig: string,
  now = Date.now(),
): boolean {
  const nowS = now / 1000;
  if (!Number.isInteger(expires) || expires < nowS) return false;
  if (expires > nowS + ttlOf(subject) + CLOCK_SKEW_S) return false;
  const expected = Buffer.from(signature(key, subject, expires));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** What a video preview frame's address signs (its job's id and the frame's index). */
export const videoFrameSubject = (jobId: string, index: number) => `video-frame:${jobId}:${index}`;

/** A video preview frame's address, expiring within the TTL and by `until` (the job's deletion). */
export const signVideoFrameUrl = (
  base: string,
  key: Buffer,
  jobId: string,
  index: number,
  until: Date,
  now = Date.now(),
) =>
  signed(
    base,
    `/media/video-frames/${jobId}/${index}`,
    key,
    videoFrameSubject(jobId, index),
    now,
    until,
  ).url;

/** The address a platform fetches an asset from (PublicMedia), valid PUBLIC_MEDIA_TTL_S. */
export const signPlatformMediaUrl = (
  base: string,
  key: Buffer,
  assetId: string,
  now = Date.now(),
) => signed(base, `/media/platform/${assetId}`, key, platformMediaSubject(assetId), now).url;
