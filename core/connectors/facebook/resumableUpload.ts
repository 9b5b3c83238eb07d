// A video's bytes by Meta's Resumable Upload API, then its publication on the Page with the file
// handle: `POST /{app-id}/uploads` opens a session (`upload:<id>`, remembered), `POST
// /upload:<id>` with `Authorization: OAuth` and a `file_offset` header sends the bytes and
// answers the handle (remembered), `GET /upload:<id>` answers the offset Facebook has, so a
// retry sends only the rest. The session takes the person's user token where the connection
// keeps one (the documented token); a Page token otherwise, and Facebook's answer decides.
// Docs: developers.facebook.com/docs/graph-api/guides/upload, …/documentation/video-api/guides/publishing.
import { z } from 'zod';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import {
  type AccessTokens,
  PublicationError,
  type PublicationSteps,
  type PublishMedia,
} from '../connector.ts';
import { documented, type PlatformResponse, platformRequest } from '../http.ts';
import { GraphRefusal, graphErrorOf, graphRefusal } from '../meta/graphErrors.ts';
import { FACEBOOK } from './api.ts';

export type ResumableDeps = {
  outbound: OutboundPolicy;
  /** FACEBOOK_API_URL with the Graph version, without a trailing slash. */
  apiUrl: string;
  /** The operator's app (FACEBOOK_CLIENT_ID), which the upload session belongs to. */
  appId: string;
  /** The token the upload session is opened and fed with. */
  tokens: AccessTokens;
  timeoutMs: number;
  steps: PublicationSteps;
  signal: AbortSignal;
};

const final = (message: string) => new PublicationError(message, { retryable: false });

/** An upload session's id as /{app-id}/uploads answers it: `upload:` and an opaque token. */
const SessionId = z
  .string()
  .max(2000)
  .regex(/^upload:[A-Za-z0-9_\-=?&%+/:.]+$/, 'not an upload session id')
  .refine((s) => !s.includes('..') && !s.includes('//'), 'not an upload session id');
/** POST /{app-id}/uploads: the session. */
const Opened = z.object({ id: SessionId });
/** A file handle: printable, bounded. */
const Handle = z
  .string()
  .min(1)
  .max(2000)
  .regex(/^[\x21-\x7e]+$/, 'not a file handle');
/** POST /upload:<id>: the file handle once the file is whole. */
const Uploaded = z.object({ h: Handle });
/** GET /upload:<id>: the session and the offset of the next byte Facebook expects. */
const Progress = z.object({
  id: SessionId.optional(),
  file_offset: z.coerce.number().int().min(0),
});

/** Upload session `n` of the attempt, and its handle once Facebook gave it. */
const sessionStep = (n: number) => `facebook.upload.session${n ? `.${n}` : ''}`;
const handleStep = (n: number) => `facebook.upload.handle${n ? `.${n}` : ''}`;

/** What the uploads endpoint answers when it does not exist for this app or host. */
export class UploadsUnsupported extends Error {}

/**
 * Whether Facebook answered that `/{app-id}/uploads` does not exist: a 404, Graph's
 * "Unsupported post request" (100, subcode 33) or unknown path (2500).
 */
function unsupported(res: PlatformResponse): boolean {
  if (res.status === 404) return true;
  const e = graphErrorOf(res);
  return (e?.code === 100 && e.subcode === 33) || e?.code === 2500;
}

/** The slowest upload a request is given time for (256 KB/s). */
const UPLOAD_BYTES_PER_S = 256 * 1024;

const tokenRefused = (res: PlatformResponse) => {
  const code = graphErrorOf(res)?.code;
  return code === 190 || code === 102 || (res.status === 401 && code === undefined);
};

/** One call of the upload API; 2xx without a Graph error, else Meta's refusal. */
async function uploadCall(
  d: ResumableDeps,
  method: 'GET' | 'POST',
  path: string,
  opts: { query?: Record<string, string>; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<PlatformResponse> {
  // The bytes go in one request, as Meta's page sends them: it is given time for them.
  const timeoutMs = Math.max(
    d.timeoutMs,
    Math.ceil((opts.body?.length ?? 0) / UPLOAD_BYTES_PER_S) * 1000,
  );
  const query = opts.query ? `?${new URLSearchParams(opts.query)}` : '';
  const url = `${d.apiUrl}${path}${path.includes('?') ? query.replace('?', '&') : query}`;
  const send = (token: string) =>
    platformRequest(d.outbound, FACEBOOK, url, {
      method,
      headers: {
        // The upload API reads the token from this header (its pages write it so).
        authorization: `OAuth ${token}`,
        accept: 'application/json',
        ...(opts.body ? { 'content-type': 'application/octet-stream' } : {}),
        ...opts.headers,
      },
      body: opts.body,
      timeoutMs,
    });
  const token = await d.tokens.current();
  let res = await send(token);
  if (tokenRefused(res)) res = await send(await d.tokens.refused(token));
  if (res.status >= 200 && res.status < 300 && !graphErrorOf(res)) return res;
  if (method === 'POST' && path.endsWith('/uploads') && unsupported(res))
    throw new UploadsUnsupported();
  throw graphRefusal(FACEBOOK, res);
}

/** The name the session gives the file: the asset's id and its type's extension. */
const fileNameOf = (media: PublishMedia) => `${media.id}.mp4`;

/**
 * A handle Facebook writes as `<version>:<base64 file name>:<base64 type>:…` names its file: a
 * handle naming another file is another session's. A handle of any other shape is taken as it is.
 */
function namesAnotherFile(handle: string, fileName: string, fileType: string): boolean {
  const m = /^\d+:([A-Za-z0-9+/]+={0,2}):([A-Za-z0-9+/]+={0,2}):/.exec(handle);
  if (!m) return false;
  const name = Buffer.from(m[1]!, 'base64').toString('utf8');
  const type = Buffer.from(m[2]!, 'base64').toString('utf8');
  return name !== fileName || type !== fileType;
}

/**
 * The file handle of the video's bytes, uploaded now or by an earlier try: an earlier try's
 * session resumes at the offset Facebook reports. A session that no longer takes the bytes
 * (expired, or whole but its handle lost and not given again) is replaced by a new one:
 * nothing is published before the handle is used. Throws UploadsUnsupported when the uploads
 * endpoint does not exist.
 */
export async function uploadedHandle(
  d: ResumableDeps,
  media: PublishMedia,
  bytes: Buffer,
): Promise<string> {
  let n = 0;
  while (await d.steps.recall(sessionStep(n + 1))) n++;
  const known = await d.steps.recall(handleStep(n));
  if (known) return known;
  const resumed = (await d.steps.recall(sessionStep(n))) !== undefined;
  try {
    return await uploadInSession(d, media, bytes, n);
  } catch (err) {
    const refused = err instanceof GraphRefusal && !err.retryable && !err.reconnect;
    if (!resumed || !refused) throw err;
    return uploadInSession(d, media, bytes, n + 1);
  }
}

async function uploadInSession(
  d: ResumableDeps,
  media: PublishMedia,
  bytes: Buffer,
  n: number,
): Promise<string> {
  const fileName = fileNameOf(media);
  const fileType = 'video/mp4';
  let session = await d.steps.recall(sessionStep(n));
  let offset = 0;
  if (!session) {
    const res = await uploadCall(d, 'POST', `/${d.appId}/uploads`, {
      query: { file_name: fileName, file_length: String(bytes.length), file_type: fileType },
    });
    const opened = documented(FACEBOOK, `POST /${d.appId}/uploads`, res, Opened);
    await d.steps.remember(sessionStep(n), opened.id);
    session = (await d.steps.recall(sessionStep(n)))!;
  } else {
    const res = await uploadCall(d, 'GET', `/${session}`);
    const progress = documented(FACEBOOK, 'GET /upload:…', res, Progress);
    if (progress.id !== undefined && progress.id !== session)
      throw final(`${FACEBOOK} answered the state of another upload session; the upload stopped.`);
    if (progress.file_offset > bytes.length)
      throw final(
        `${FACEBOOK} reported byte ${progress.file_offset} of a video of ${bytes.length} bytes; the upload stopped.`,
      );
    offset = progress.file_offset;
  }
  d.signal.throwIfAborted();
  const res = await uploadCall(d, 'POST', `/${session}`, {
    headers: { file_offset: String(offset) },
    body: bytes.subarray(offset),
  });
  const { h } = documented(FACEBOOK, 'POST /upload:…', res, Uploaded);
  if (namesAnotherFile(h, fileName, fileType))
    throw final(
      `${FACEBOOK} answered the upload with the handle of another file; the upload stopped.`,
    );
  await d.steps.remember(handleStep(n), h);
  return (await d.steps.recall(handleStep(n)))!;
}
