// LinkedIn's media uploads (Images API, Videos API): the image or video is registered with
// `initializeUpload`, its bytes PUT to the address LinkedIn answers (a video in the byte
// ranges it names, each PUT's ETag kept for `finalizeUpload`), then it is polled until
// LinkedIn has processed it (a post naming media still processing is refused). Each upload's URN is remembered in the publication's steps once
// its bytes are in, so a retried attempt reuses it rather than uploading again.
// Docs: learn.microsoft.com/linkedin/marketing/community-management/shares/images-api,
// .../videos-api.
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { formatBytes } from '../../kernel/sizes.ts';
import type { Storage } from '../../storage/storage.ts';
import { PublicationError, type PublicationSteps, type PublishMedia } from '../connector.ts';
import { documented } from '../http.ts';
import { type LinkedInCall, linkedinRefusal, PLATFORM } from './api.ts';

/** LinkedIn takes images of fewer pixels than this (Images API). */
export const LINKEDIN_MAX_IMAGE_PIXELS = 36_152_320;

/** A ranged PUT larger than this is not one LinkedIn documents (its parts are 4 MiB). */
const MAX_PART_BYTES = 64 * 1024 * 1024;
/** More parts than a 5 GB video in 4 MiB parts: a longer list is not LinkedIn's. */
const MAX_PARTS = 2_000;

const Urn = (type: string) =>
  z
    .string()
    .max(200)
    .regex(new RegExp(`^urn:li:${type}:[A-Za-z0-9_-]+$`));
const UploadUrl = z.url({ protocol: /^https?$/ }).max(4000);

/** POST /rest/images?action=initializeUpload, as far as the connector reads it. */
const ImageUpload = z.object({
  value: z.object({ uploadUrl: UploadUrl, image: Urn('image') }),
});
/** POST /rest/videos?action=initializeUpload. */
const VideoUpload = z.object({
  value: z.object({
    video: Urn('video'),
    uploadToken: z.string().max(2000).default(''),
    uploadInstructions: z
      .array(
        z.object({
          uploadUrl: UploadUrl,
          firstByte: z.number().int().min(0),
          lastByte: z.number().int().min(0),
        }),
      )
      .min(1)
      .max(MAX_PARTS),
  }),
});
/** GET /rest/images/{urn} and /rest/videos/{urn}: the processing status. */
const MediaStatus = z.object({
  status: z.string().max(100),
  processingFailureReason: z.string().max(1000).optional(),
});
/** An image's answer that says its status at all (some describe only its id). */
const ImageStatus = z.object({ status: z.string().min(1) });

export type MediaDeps = {
  call: LinkedInCall;
  storage: Storage;
  steps: PublicationSteps;
  signal: AbortSignal;
  /** How often an upload's processing is polled, and for how long one attempt waits. */
  poll: { intervalMs: number; boundMs: number };
};

const final = (message: string) => new PublicationError(message, { retryable: false });

function storageKeyOf(media: PublishMedia): string {
  if (!media.storageKey) throw final(`Asset ${media.id} has no stored bytes.`);
  return media.storageKey;
}

/** The image's URN on LinkedIn, uploaded (now or by an earlier try) and processed. */
export async function uploadImage(
  deps: MediaDeps,
  owner: string,
  media: PublishMedia,
  index: number,
): Promise<string> {
  const step = `linkedin.image.${index}.${media.id}`;
  const image = (await deps.steps.recall(step)) ?? (await sendImage(deps, owner, media));
  await deps.steps.remember(step, image);
  await awaitProcessed(deps, 'images', image);
  return image;
}

async function sendImage(deps: MediaDeps, owner: string, media: PublishMedia): Promise<string> {
  if (media.width && media.height && media.width * media.height >= LINKEDIN_MAX_IMAGE_PIXELS)
    throw final(
      `LinkedIn takes images of fewer than ${LINKEDIN_MAX_IMAGE_PIXELS.toLocaleString('en')} pixels; asset ${media.id} has ${media.width}×${media.height}.`,
    );
  const key = storageKeyOf(media);
  const init = await deps.call(
    '/rest/images?action=initializeUpload',
    json({ initializeUploadRequest: { owner } }),
  );
  const what = 'POST /rest/images?action=initializeUpload';
  const { uploadUrl, image } = documented(PLATFORM, what, init, ImageUpload).value;
  deps.signal.throwIfAborted();
  const bytes = await readRange(await deps.storage.get(key), Number.POSITIVE_INFINITY);
  await deps.call(uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  return image;
}

/** The video's URN on LinkedIn, uploaded and finalized (now or earlier), once processed. */
export async function uploadVideo(
  deps: MediaDeps,
  owner: string,
  media: PublishMedia,
  index: number,
): Promise<string> {
  const step = `linkedin.video.${index}.${media.id}`;
  const video = (await deps.steps.recall(step)) ?? (await sendVideo(deps, owner, media));
  await deps.steps.remember(step, video);
  await awaitProcessed(deps, 'videos', video);
  return video;
}

async function sendVideo(deps: MediaDeps, owner: string, media: PublishMedia): Promise<string> {
  const key = storageKeyOf(media);
  const size = await deps.storage.size(key);
  if (!size) throw final(`Asset ${media.id} has no stored bytes.`);
  const init = await deps.call(
    '/rest/videos?action=initializeUpload',
    json({
      initializeUploadRequest: {
        owner,
        fileSizeBytes: size,
        uploadCaptions: false,
        uploadThumbnail: false,
      },
    }),
  );
  const { video, uploadToken, uploadInstructions } = documented(
    PLATFORM,
    'POST /rest/videos?action=initializeUpload',
    init,
    VideoUpload,
  ).value;
  // The parts must cover the file exactly, in order: anything else would send a video
  // LinkedIn did not ask for.
  const parts = [...uploadInstructions].sort((a, b) => a.firstByte - b.firstByte);
  let next = 0;
  for (const p of parts) {
    if (
      p.firstByte !== next ||
      p.lastByte < p.firstByte ||
      p.lastByte - p.firstByte >= MAX_PART_BYTES
    )
      throw final(
        `LinkedIn's upload instructions for the video do not cover its ${formatBytes(size)} in order; nothing was posted.`,
      );
    next = p.lastByte + 1;
  }
  if (next !== size)
    throw final(
      `LinkedIn's upload instructions for the video cover ${formatBytes(next)}, not its ${formatBytes(size)}; nothing was posted.`,
    );

  const etags: string[] = [];
  const stream = await deps.storage.get(key);
  try {
    for (const part of parts) {
      deps.signal.throwIfAborted();
      const bytes = await readRange(stream, part.lastByte - part.firstByte + 1);
      const res = await deps.call(part.uploadUrl, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      const etag = res.headers.etag;
      if (typeof etag !== 'string' || !etag || etag.length > 500)
        throw final('LinkedIn answered a video part without its ETag; nothing was posted.');
      etags.push(etag);
    }
  } finally {
    stream.destroy();
  }
  await deps.call(
    '/rest/videos?action=finalizeUpload',
    json({
      finalizeUploadRequest: { video, uploadToken, uploadedPartIds: etags },
    }),
  );
  return video;
}

/**
 * Waits (bounded) until LinkedIn says the image or video is AVAILABLE. Reading a video's
 * status is part of the documented upload; an image's is not, so an app that may not read it
 * (403, 404, 405), or an answer that gives no status, posts it without waiting, as the Images
 * API's own walkthrough does.
 */
async function awaitProcessed(
  deps: MediaDeps,
  collection: 'images' | 'videos',
  urn: string,
): Promise<void> {
  const noun = collection === 'images' ? 'image' : 'video';
  const until = Date.now() + deps.poll.boundMs;
  // Rest.li 2.0 URL-encodes a URN in a path (the Videos and Posts pages do), while the Images
  // page shows it plain: the plain form is tried once when the encoded one is not found.
  let path = `/rest/${collection}/${encodeURIComponent(urn)}`;
  for (;;) {
    let res = await deps.call(path, { method: 'GET', answer: [400, 403, 404, 405] });
    if ([400, 404].includes(res.status) && path.includes('%3A')) {
      path = `/rest/${collection}/${urn}`;
      res = await deps.call(path, { method: 'GET', answer: [400, 403, 404, 405] });
    }
    if (res.status >= 300) {
      if (collection === 'images') return;
      throw linkedinRefusal(res);
    }
    if (collection === 'images' && !ImageStatus.safeParse(res.json).success) return;
    const { status, processingFailureReason } = documented(
      PLATFORM,
      `GET /rest/${collection}/{urn}`,
      res,
      MediaStatus,
    );
    if (status === 'AVAILABLE') return;
    if (status === 'PROCESSING_FAILED')
      throw final(
        `LinkedIn could not process the ${noun}${processingFailureReason ? `: ${processingFailureReason.slice(0, 300)}` : ''}.`,
      );
    if (Date.now() + deps.poll.intervalMs > until)
      // The upload is kept (its URN is remembered): the next try only waits again.
      throw new PublicationError(`LinkedIn is still processing the ${noun}.`, {
        retryable: true,
        retryAfterMs: 60_000,
      });
    await sleep(deps.poll.intervalMs, undefined, { signal: deps.signal });
  }
}

const json = (body: unknown) => ({
  method: 'POST' as const,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/**
 * The next `length` bytes of `stream` (all of it when Infinity), read as they come so that a
 * video is held one part at a time.
 */
async function readRange(stream: Readable, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let have = 0;
  while (have < length) {
    const chunk: Buffer | null = stream.read(
      Number.isFinite(length) ? Math.min(length - have, 1 << 20) : undefined,
    );
    if (chunk) {
      chunks.push(chunk);
      have += chunk.length;
      continue;
    }
    if (stream.readableEnded || stream.destroyed) break;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        stream.off('readable', done).off('end', done).off('error', fail);
        resolve();
      };
      const fail = (err: Error) => {
        stream.off('readable', done).off('end', done);
        reject(err);
      };
      stream.once('readable', done).once('end', done).once('error', fail);
    });
  }
  if (Number.isFinite(length) && have < length)
    throw final('The stored video is shorter than its recorded size; nothing was posted.');
  return Buffer.concat(chunks);
}
