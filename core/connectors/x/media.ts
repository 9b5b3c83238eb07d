// A post's media on X (docs.x.com: x-api/media, media-upload-chunked, best-practices): images
// by the simple POST /2/media/upload, a video or a GIF by the chunked initialize / append /
// finalize, then GET /2/media/upload?command=STATUS until X has processed it. Each media id is
// remembered in the attempt's steps with its expiry, so a retried attempt attaches what it
// uploaded already instead of uploading it again.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { formatBytes } from '../../kernel/sizes.ts';
import { readAll, type Storage } from '../../storage/storage.ts';
import { PublicationError, type PublicationSteps, type PublishMedia } from '../connector.ts';
import { documented } from '../http.ts';
import { plainText } from '../readings.ts';
import { X, type XCall } from './api.ts';

/** X's media ids are decimal numbers (openapi.json: MediaId, `^[0-9]{1,19}$`). */
const MediaId = z.string().regex(/^[0-9]{1,19}$/);
const ProcessingInfo = z.object({
  state: z.enum(['pending', 'in_progress', 'failed', 'succeeded']),
  check_after_secs: z.number().int().min(0).optional(),
  progress_percent: z.number().optional(),
  error: z
    .object({ message: z.string().max(1000).optional() })
    .passthrough()
    .optional(),
});
const Uploaded = z.object({
  data: z.object({
    id: MediaId,
    expires_after_secs: z.number().int().positive().optional(),
    processing_info: ProcessingInfo.optional(),
  }),
});
/**
 * GET /2/media/upload?command=STATUS: only the processing is read; an answer without
 * `processing_info` says there is nothing left to process.
 */
const Status = z.object({
  data: z.object({ processing_info: ProcessingInfo.optional() }),
});
const Initialized = z.object({
  data: z.object({ id: MediaId, expires_after_secs: z.number().int().positive().optional() }),
});

/** X's simple upload takes images up to 5 MB. */
const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** Bytes per appended segment: X takes up to 1,000 segments of at most 5 MB. */
export const SEGMENT_BYTES = 4 * 1024 * 1024;
/** A media id is kept for reuse only while it has this long left to live. */
const REUSE_MARGIN_MS = 10 * 60_000;
/** How long a publication waits for X's processing before trying again later. */
const PROCESSING_WAIT_MS = 40_000;
/** X's `check_after_secs` is honoured within these bounds. */
const MIN_CHECK_MS = 200;
const MAX_CHECK_MS = 10_000;
/** When X does not say how long an upload lives (its docs give a day). */
const DEFAULT_EXPIRY_S = 86_400;

const isGif = (m: PublishMedia) => m.mime.toLowerCase() === 'image/gif';
/** Whether the medium goes through the chunked upload (a video, an animated GIF). */
export const isChunked = (m: PublishMedia) => m.kind === 'video' || isGif(m);

type Remembered = { id: string; expiresAt: number; processed: boolean };

function multipart(fields: Record<string, string | Blob>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const encoded = new Request('http://form.invalid', { method: 'POST', body: form });
  return encoded.arrayBuffer().then((body) => ({
    headers: { 'content-type': encoded.headers.get('content-type')! },
    body: Buffer.from(body),
  }));
}

const final = (message: string) => new PublicationError(message, { retryable: false });

export type MediaContext = {
  call: XCall;
  storage: Storage;
  steps: PublicationSteps;
  signal: AbortSignal;
};

/** Waits until X has processed media `id`; a failure X reports is final, a long wait is retried. */
async function untilProcessed(
  ctx: MediaContext,
  id: string,
  info: z.output<typeof ProcessingInfo> | undefined,
) {
  const deadline = Date.now() + PROCESSING_WAIT_MS;
  let state = info;
  while (state && state.state !== 'succeeded') {
    if (state.state === 'failed')
      throw final(
        `X could not process the media${state.error?.message ? `: ${plainText(state.error.message).slice(0, 300)}` : '.'}`,
      );
    const wait = Math.min(
      MAX_CHECK_MS,
      Math.max(MIN_CHECK_MS, (state.check_after_secs ?? 1) * 1000),
    );
    if (Date.now() + wait > deadline)
      throw new PublicationError(
        'X is still processing the media; the publication tries again shortly.',
        {
          retryable: true,
          retryAfterMs: wait,
        },
      );
    await sleep(wait, undefined, { signal: ctx.signal });
    const path = `/2/media/upload?command=STATUS&media_id=${encodeURIComponent(id)}`;
    const res = await ctx.call(path, { method: 'GET' });
    state = documented(X, 'GET /2/media/upload?command=STATUS', res, Status).data.processing_info;
  }
}

async function simpleUpload(ctx: MediaContext, m: PublishMedia, bytes: Buffer) {
  const form = await multipart({
    media: new Blob([new Uint8Array(bytes)], { type: m.mime }),
    media_category: 'tweet_image',
  });
  const res = await ctx.call('/2/media/upload', { method: 'POST', ...form });
  return documented(X, 'POST /2/media/upload', res, Uploaded).data;
}

async function chunkedUpload(ctx: MediaContext, m: PublishMedia, bytes: Buffer) {
  const init = await ctx.call('/2/media/upload/initialize', {
    method: 'POST',
    json: {
      media_type: m.mime,
      total_bytes: bytes.length,
      media_category: isGif(m) ? 'tweet_gif' : 'tweet_video',
    },
  });
  const { id } = documented(X, 'POST /2/media/upload/initialize', init, Initialized).data;
  const base = `/2/media/upload/${encodeURIComponent(id)}`;
  for (let i = 0, at = 0; at < bytes.length; i++, at += SEGMENT_BYTES) {
    const segment = bytes.subarray(at, at + SEGMENT_BYTES);
    const form = await multipart({
      media: new Blob([new Uint8Array(segment)], { type: 'application/octet-stream' }),
      segment_index: String(i),
    });
    await ctx.call(`${base}/append`, { method: 'POST', ...form });
  }
  const done = await ctx.call(`${base}/finalize`, { method: 'POST' });
  return documented(X, 'POST /2/media/upload/{id}/finalize', done, Uploaded).data;
}

/**
 * The media ids of a post's attachments, in order, uploaded once per attempt: an id this
 * attempt remembered and X still keeps is reused, and one still processing is waited for.
 */
export async function uploadAll(ctx: MediaContext, media: PublishMedia[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, m] of media.entries()) {
    // A step is written once: an upload that expired is replaced under the next generation.
    let generation = 0;
    let kept: Remembered | undefined;
    for (let g = 0; ; g++) {
      const recalled = await ctx.steps.recall(`media.${i}.${g}`);
      if (recalled === undefined) break;
      kept = JSON.parse(recalled) as Remembered;
      generation = g + 1;
    }
    if (kept && kept.expiresAt - REUSE_MARGIN_MS > Date.now()) {
      if (!kept.processed)
        await untilProcessed(ctx, kept.id, { state: 'pending', check_after_secs: 0 });
      ids.push(kept.id);
      continue;
    }
    if (!m.storageKey) throw final(`Asset ${m.id} has no stored bytes.`);
    const bytes = await readAll(ctx.storage, m.storageKey);
    if (!isChunked(m) && bytes.length > IMAGE_MAX_BYTES)
      throw final(
        `X takes images up to ${formatBytes(IMAGE_MAX_BYTES)}; asset ${m.id} has ${formatBytes(bytes.length)}.`,
      );
    const data = isChunked(m)
      ? await chunkedUpload(ctx, m, bytes)
      : await simpleUpload(ctx, m, bytes);
    const expiresAt = Date.now() + (data.expires_after_secs ?? DEFAULT_EXPIRY_S) * 1000;
    const entry: Remembered = { id: data.id, expiresAt, processed: !data.processing_info };
    // Remembered before the wait: a retry after a slow processing polls, not uploads again.
    await ctx.steps.remember(`media.${i}.${generation}`, JSON.stringify(entry));
    await untilProcessed(ctx, data.id, data.processing_info);
    ids.push(data.id);
  }
  return ids;
}
