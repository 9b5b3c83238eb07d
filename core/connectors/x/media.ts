// A post's media on X (docs.x.com: x-api/media, media-upload-chunked, best-practices): images
// by the simple POST /2/media/upload, a video or a GIF by the chunked upload (initialize,
// append, finalize: the path form of the OpenAPI, or the command form of the quickstart where
// X has no path form), then GET /2/media/upload?command=STATUS until X has processed it. Each
// media id is remembered in the attempt's steps with its expiry, and so is each segment X
// took, so a retried attempt attaches what it uploaded already and resumes an interrupted
// upload instead of sending it again.
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
type Processing = z.output<typeof ProcessingInfo>;
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
/**
 * Bytes per appended segment: X takes up to 1,000 segments of at most 5 MB; 1 MB, as the
 * quickstart sends, so that a crash loses at most 1 MB of an upload that is then resumed.
 */
export const SEGMENT_BYTES = 1024 * 1024;
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
async function untilProcessed(ctx: MediaContext, id: string, info: Processing | undefined) {
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
    state = await statusOf(ctx, id);
  }
}

/** X's processing of media `id` (STATUS); none when there is nothing left to process. */
async function statusOf(ctx: MediaContext, id: string): Promise<Processing | undefined> {
  const path = `/2/media/upload?command=STATUS&media_id=${encodeURIComponent(id)}`;
  const res = await ctx.call(path, { method: 'GET' });
  return documented(X, 'GET /2/media/upload?command=STATUS', res, Status).data.processing_info;
}

async function simpleUpload(ctx: MediaContext, m: PublishMedia, bytes: Buffer) {
  const form = await multipart({
    media: new Blob([new Uint8Array(bytes)], { type: m.mime }),
    media_category: 'tweet_image',
  });
  const res = await ctx.call('/2/media/upload', { method: 'POST', ...form });
  return documented(X, 'POST /2/media/upload', res, Uploaded).data;
}

/** The form of X's chunked upload a session was opened with (the docs disagree by date: docs/platforms.md, X). */
type Form = 'path' | 'command';
/** An open chunked upload, remembered once X gave its id, before any segment is sent. */
type Session = { id: string; expiresAt: number; form: Form };

const CATEGORY = (m: PublishMedia) => (isGif(m) ? 'tweet_gif' : 'tweet_video');
const isStatus = (err: unknown, ...statuses: number[]) =>
  err instanceof PublicationError && statuses.includes(err.status ?? 0);

/**
 * Opens the upload by the path form (`POST /2/media/upload/initialize`); where X answers that
 * it has no such endpoint (404, 405), by the command form the quickstart shows (`command=INIT`
 * on `/2/media/upload`). Nothing was opened by the refused call, so sending INIT is no retry.
 */
async function initialize(ctx: MediaContext, m: PublishMedia, size: number) {
  const fields = { media_type: m.mime, total_bytes: size, media_category: CATEGORY(m) };
  try {
    const res = await ctx.call('/2/media/upload/initialize', { method: 'POST', json: fields });
    const said = documented(X, 'POST /2/media/upload/initialize', res, Initialized).data;
    return { ...said, form: 'path' as const };
  } catch (err) {
    if (!isStatus(err, 404, 405)) throw err;
  }
  const form = await multipart({ command: 'INIT', ...fields, total_bytes: String(size) });
  const res = await ctx.call('/2/media/upload', { method: 'POST', ...form });
  const said = documented(X, 'POST /2/media/upload (INIT)', res, Initialized).data;
  return { ...said, form: 'command' as const };
}

async function append(ctx: MediaContext, session: Session, index: number, segment: Buffer) {
  const media = new Blob([new Uint8Array(segment)], { type: 'application/octet-stream' });
  const fields = { segment_index: String(index), media };
  if (session.form === 'path') {
    const form = await multipart(fields);
    await ctx.call(`/2/media/upload/${encodeURIComponent(session.id)}/append`, {
      method: 'POST',
      ...form,
    });
  } else {
    const form = await multipart({ command: 'APPEND', media_id: session.id, ...fields });
    await ctx.call('/2/media/upload', { method: 'POST', ...form });
  }
}

async function finalize(ctx: MediaContext, session: Session) {
  if (session.form === 'path') {
    const path = `/2/media/upload/${encodeURIComponent(session.id)}/finalize`;
    const res = await ctx.call(path, { method: 'POST' });
    return documented(X, 'POST /2/media/upload/{id}/finalize', res, Uploaded).data;
  }
  const form = await multipart({ command: 'FINALIZE', media_id: session.id });
  const res = await ctx.call('/2/media/upload', { method: 'POST', ...form });
  return documented(X, 'POST /2/media/upload (FINALIZE)', res, Uploaded).data;
}

/** X no longer knows a remembered upload: the next generation starts over. */
class Forgotten extends Error {}

/**
 * Sends the segments of `session` that no step says X has, then finalizes it. Each segment is
 * remembered once X took it, so a retry after a crash sends only the rest; one sent but not
 * remembered is sent again under its own `segment_index`, which X files in its place. On a
 * `resumed` session, X's 400 or 404 to the first call naming the id says it no longer knows it
 * (its docs: a media id used after it expired is answered 4xx): Forgotten. A finalize refused
 * when every segment was sent before may have been done by the crashed try: STATUS tells.
 */
async function sendSegments(
  ctx: MediaContext,
  step: string,
  session: Session,
  bytes: Buffer,
  resumed: boolean,
) {
  let first = resumed;
  const forgotten = (err: unknown) => first && isStatus(err, 400, 404);
  for (let i = 0, at = 0; at < bytes.length; i++, at += SEGMENT_BYTES) {
    if ((await ctx.steps.recall(`${step}.segment.${i}`)) !== undefined) continue;
    try {
      await append(ctx, session, i, bytes.subarray(at, at + SEGMENT_BYTES));
    } catch (err) {
      throw forgotten(err) ? new Forgotten() : err;
    }
    first = false;
    await ctx.steps.remember(`${step}.segment.${i}`, 'appended');
  }
  try {
    return await finalize(ctx, session);
  } catch (err) {
    if (!forgotten(err)) throw err;
  }
  try {
    return { id: session.id, processing_info: await statusOf(ctx, session.id) };
  } catch (err) {
    throw isStatus(err, 400, 404) ? new Forgotten() : err;
  }
}

/**
 * A video or GIF by the chunked upload, as generation `next` of the steps under `prefix`, or
 * by resuming the `open` session a crashed try left while it has time left; one near its
 * expiry, or one X no longer knows, starts over under the next generation.
 */
async function chunkedUpload(
  ctx: MediaContext,
  m: PublishMedia,
  bytes: Buffer,
  steps: { prefix: string; next: number; open: { step: string; session: Session } | undefined },
) {
  const { open } = steps;
  if (open && open.session.expiresAt - REUSE_MARGIN_MS > Date.now()) {
    try {
      const data = await sendSegments(ctx, open.step, open.session, bytes, true);
      return { step: open.step, session: open.session, data };
    } catch (err) {
      if (!(err instanceof Forgotten)) throw err;
    }
  }
  const step = `${steps.prefix}.${steps.next}`;
  const init = await initialize(ctx, m, bytes.length);
  const session: Session = {
    id: init.id,
    expiresAt: Date.now() + (init.expires_after_secs ?? DEFAULT_EXPIRY_S) * 1000,
    form: init.form,
  };
  // Remembered before any segment: a retry appends to this id instead of opening another.
  await ctx.steps.remember(`${step}.upload`, JSON.stringify(session));
  return { step, session, data: await sendSegments(ctx, step, session, bytes, false) };
}

/** What the steps under `prefix` say of one medium: its last upload, finished or still open. */
async function recallUploads(steps: PublicationSteps, prefix: string) {
  let next = 0;
  let kept: Remembered | undefined;
  let open: { step: string; session: Session } | undefined;
  // A step is written once: an upload that expired is replaced under the next generation.
  for (; ; next++) {
    const step = `${prefix}.${next}`;
    const done = await steps.recall(step);
    const started = await steps.recall(`${step}.upload`);
    if (done === undefined && started === undefined) break;
    kept = done === undefined ? undefined : (JSON.parse(done) as Remembered);
    open = done === undefined ? { step, session: JSON.parse(started!) as Session } : undefined;
  }
  return { next, kept, open };
}

/**
 * The media ids of a post's attachments, in order, uploaded once per attempt: an id this
 * attempt remembered and X still keeps is reused (one still processing is waited for), and a
 * chunked upload a crash interrupted is resumed where it stopped.
 */
export async function uploadAll(ctx: MediaContext, media: PublishMedia[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, m] of media.entries()) {
    const prefix = `media.${i}`;
    const { next, kept, open } = await recallUploads(ctx.steps, prefix);
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
    let step = `${prefix}.${next}`;
    let data: { id: string; expires_after_secs?: number; processing_info?: Processing };
    let expiresAt: number | undefined;
    if (isChunked(m)) {
      const chunked = await chunkedUpload(ctx, m, bytes, { prefix, next, open });
      ({ step, data } = chunked);
      expiresAt = chunked.session.expiresAt;
    } else data = await simpleUpload(ctx, m, bytes);
    if (data.expires_after_secs !== undefined)
      expiresAt = Date.now() + data.expires_after_secs * 1000;
    const entry: Remembered = {
      id: data.id,
      expiresAt: expiresAt ?? Date.now() + DEFAULT_EXPIRY_S * 1000,
      processed: !data.processing_info,
    };
    // Remembered before the wait: a retry after a slow processing polls, not uploads again.
    await ctx.steps.remember(step, JSON.stringify(entry));
    await untilProcessed(ctx, data.id, data.processing_info);
    ids.push(data.id);
  }
  return ids;
}
