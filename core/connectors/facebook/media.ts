// A post's media on a Facebook Page. Photos are uploaded as bytes (multipart `source`), so
// Facebook needs no public address of ours: several photos unpublished (`published=false`),
// each id remembered so a retry attaches them rather than uploading again. A video goes by the
// Resumable Upload API (./resumableUpload.ts); where its endpoint does not exist, by the Video
// API's older phases on the video host, here: `start` (the session and the video's id,
// remembered), `transfer` of the bytes at the offsets Facebook answers (the next offset
// remembered after each, so a retry resumes there), then `finish`, which publishes it.
// Docs: developers.facebook.com/docs/graph-api/reference/page/photos,
// …/docs/video-api/guides/publishing (resumable upload), …/docs/graph-api/reference/video.
import { z } from 'zod';
import { readAll, type Storage } from '../../storage/storage.ts';
import { finalFailure as final, type PublicationSteps, type PublishMedia } from '../connector.ts';
import { documented } from '../http.ts';
import type { GraphCall } from '../meta/graph.ts';
import { GraphRefusal } from '../meta/graphErrors.ts';
import { FACEBOOK, ObjectId } from './api.ts';

export type MediaDeps = {
  call: GraphCall;
  storage: Storage;
  steps: PublicationSteps;
  signal: AbortSignal;
  pageId: string;
};

async function bytesOf(storage: Storage, media: PublishMedia): Promise<Buffer> {
  if (!media.storageKey) throw final(`Asset ${media.id} has no stored bytes.`);
  return readAll(storage, media.storageKey);
}

const filenameOf = (media: PublishMedia) => {
  const ext = media.mime.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
  return `${media.id}.${ext}`;
};

/** POST /{page-id}/photos unpublished: the photo's id. */
const Photo = z.object({ id: ObjectId });

/** The ids of unpublished photos for a multi-photo post, uploaded now or by an earlier try. */
export async function uploadUnpublishedPhotos(
  deps: MediaDeps,
  media: PublishMedia[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, m] of media.entries()) {
    deps.signal.throwIfAborted();
    const step = `facebook.photo.${i}`;
    const known = await deps.steps.recall(step);
    if (known) {
      ids.push(known);
      continue;
    }
    const res = await deps.call(
      'POST',
      `/${deps.pageId}/photos`,
      { published: 'false', ...(m.alt ? { alt_text_custom: m.alt.slice(0, 1000) } : {}) },
      {
        file: {
          name: 'source',
          filename: filenameOf(m),
          mime: m.mime,
          bytes: await bytesOf(deps.storage, m),
        },
      },
    );
    const { id } = documented(FACEBOOK, `POST /${deps.pageId}/photos`, res, Photo);
    await deps.steps.remember(step, id);
    ids.push(id);
  }
  return ids;
}

/** A video's stored bytes. */
export const videoBytes = (deps: MediaDeps, media: PublishMedia) => bytesOf(deps.storage, media);

/** The bytes of a single published photo's upload, and its form fields. */
export async function photoUpload(deps: MediaDeps, media: PublishMedia) {
  return {
    name: 'source',
    filename: filenameOf(media),
    mime: media.mime,
    bytes: await bytesOf(deps.storage, media),
  };
}

/** upload_phase=start: the session, the video's id and the first chunk's offsets. */
const Started = z.object({
  upload_session_id: z.string().regex(/^\d{1,40}$/),
  video_id: ObjectId,
  start_offset: z.coerce.number().int().min(0),
  end_offset: z.coerce.number().int().min(0),
});
/** upload_phase=transfer: the next chunk's offsets (start = end when all bytes are in). */
const Transferred = z.object({
  start_offset: z.coerce.number().int().min(0),
  end_offset: z.coerce.number().int().min(0),
});
/** upload_phase=finish: whether the video was published. */
const Finished = z.object({ success: z.literal(true) });

/** Session `n` of the attempt and its first chunk's offsets, once `start` answered. */
export const OLDER_SESSION = 'facebook.video.session';
const sessionStep = (n: number) => `facebook.video.session${n ? `.${n}` : ''}`;
/** The offsets Facebook answered to session `n`'s chunk sent at `start` (steps are written once). */
const after = (n: number, start: number) => `facebook.video${n ? `.${n}` : ''}.after.${start}`;
/** Graph's video upload errors: the session no longer takes the chunk a retry sends. */
const UPLOAD_REFUSED = new Set([6000, 6001]);
/** Remembered just before `finish`: a retry reads the video back before finishing again. */
export const FINISHING = 'facebook.video.finishing';

/** The most one transfer carries, whatever Facebook asks (its chunks are a few MB). */
const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

type Session = { sessionId: string; videoId: string };
type Remembered = Session & { offsets: [number, number] };

/**
 * Uploads the video's bytes, resuming an earlier try's session at its remembered offset: the
 * session, ready for `finish`. When a resumed session refuses the upload (an earlier try
 * crashed after Facebook took a chunk and before its offsets were remembered, or the session
 * expired), a new session uploads the video again: nothing is published before `finish`.
 */
export async function transferVideo(deps: MediaDeps, media: PublishMedia): Promise<Session> {
  const bytes = await bytesOf(deps.storage, media);
  let n = 0;
  while (await deps.steps.recall(sessionStep(n + 1))) n++;
  const resumed = (await deps.steps.recall(sessionStep(n))) !== undefined;
  try {
    return await uploadInSession(deps, bytes, n);
  } catch (err) {
    const refused =
      err instanceof GraphRefusal &&
      !err.retryable &&
      err.code !== undefined &&
      UPLOAD_REFUSED.has(err.code);
    if (!resumed || !refused) throw err;
    return uploadInSession(deps, bytes, n + 1);
  }
}

async function uploadInSession(deps: MediaDeps, bytes: Buffer, n: number): Promise<Session> {
  const { call, steps, pageId } = deps;
  const what = (phase: string) => `POST /${pageId}/videos (${phase})`;
  let remembered = await steps.recall(sessionStep(n));
  if (!remembered) {
    const res = await call(
      'POST',
      `/${pageId}/videos`,
      { upload_phase: 'start', file_size: String(bytes.length) },
      { host: 'video' },
    );
    const started = documented(FACEBOOK, what('start'), res, Started);
    const fresh: Remembered = {
      sessionId: started.upload_session_id,
      videoId: started.video_id,
      offsets: [started.start_offset, started.end_offset],
    };
    await steps.remember(sessionStep(n), JSON.stringify(fresh));
    remembered = (await steps.recall(sessionStep(n)))!;
  }
  const { offsets: first, ...session } = JSON.parse(remembered) as Remembered;
  // Where an earlier try got to: the offsets answered to each chunk it sent, in turn.
  let offsets = first;
  for (let known = await steps.recall(after(n, offsets[0])); known; ) {
    offsets = known.split(',').map(Number) as [number, number];
    known = offsets[0] < offsets[1] ? await steps.recall(after(n, offsets[0])) : undefined;
  }
  for (let guard = 0; offsets[0] < offsets[1]; guard++) {
    deps.signal.throwIfAborted();
    const [start, end] = offsets;
    if (end > bytes.length || end - start > MAX_CHUNK_BYTES || guard > 100_000)
      throw final(
        `${FACEBOOK} asked for bytes ${start}-${end} of a video of ${bytes.length} bytes; the upload stopped.`,
      );
    const res = await call(
      'POST',
      `/${pageId}/videos`,
      {
        upload_phase: 'transfer',
        upload_session_id: session.sessionId,
        start_offset: String(start),
      },
      {
        host: 'video',
        file: {
          name: 'video_file_chunk',
          filename: 'chunk',
          mime: 'application/octet-stream',
          bytes: bytes.subarray(start, end),
        },
      },
    );
    const next = documented(FACEBOOK, what('transfer'), res, Transferred);
    if (next.start_offset <= start)
      throw final(`${FACEBOOK} did not move past byte ${start} of the video; the upload stopped.`);
    offsets = [next.start_offset, next.end_offset];
    await steps.remember(after(n, start), offsets.join(','));
  }
  if (offsets[0] !== bytes.length)
    throw final(
      `${FACEBOOK} ended the video's upload at byte ${offsets[0]} of ${bytes.length}; the upload stopped.`,
    );
  return session;
}

/** `finish`: publishes the uploaded video with its title and description. */
export async function finishVideo(
  deps: MediaDeps,
  session: Session,
  text: { title: string | null; description: string },
): Promise<void> {
  const res = await deps.call(
    'POST',
    `/${deps.pageId}/videos`,
    {
      upload_phase: 'finish',
      upload_session_id: session.sessionId,
      description: text.description,
      ...(text.title ? { title: text.title } : {}),
    },
    { host: 'video' },
  );
  documented(FACEBOOK, `POST /${deps.pageId}/videos (finish)`, res, Finished);
}

/** GET /{video-id}?fields=status: how far the video got (Video reference: `status`). */
const VideoStatus = z.object({
  id: ObjectId,
  permalink_url: z.string().max(2000).optional().catch(undefined),
  status: z
    .object({
      video_status: z.string().max(100).optional(),
      publishing_phase: z
        .object({ status: z.string().max(100).optional() })
        .optional()
        .catch(undefined),
    })
    .optional()
    .catch(undefined),
});

/**
 * Whether an earlier try's `finish` published the video: Facebook has it and its publishing
 * phase is complete (or the video is ready). Undefined: it was not finished.
 */
export async function finishedVideo(
  deps: MediaDeps,
  videoId: string,
): Promise<{ permalink: string | undefined } | undefined> {
  const res = await deps.call('GET', `/${videoId}`, { fields: 'id,permalink_url,status' });
  const video = documented(FACEBOOK, `GET /${videoId}`, res, VideoStatus);
  if (video.id !== videoId) return undefined;
  const published =
    video.status?.publishing_phase?.status === 'complete' || video.status?.video_status === 'ready';
  return published ? { permalink: video.permalink_url } : undefined;
}
