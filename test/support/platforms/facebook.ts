// A stand-in for Facebook's Pages API on loopback, written from Meta's pages (Pages API posts,
// Page feed and photos references, the Video API's resumable upload, the Video reference's
// `status`, Graph error handling and rate limiting), on the same host as Facebook Login's
// OAuth routes (metaOauth.ts), as FACEBOOK_API_URL and FACEBOOK_VIDEO_URL point at one host in
// tests. Every call needs a live Page token of the Page, in `Authorization: Bearer` or as
// `access_token` (else Graph's 190). Posts get ids `{page-id}_{n}`; a message the Page's latest post already has is refused
// with 506; photos upload as multipart `source`, unpublished ones wait to be attached with
// `attached_media`; a video goes by the Resumable Upload API (`POST /{app-id}/uploads` opens
// a session `upload:<id>?sig=…` for a user or Page token given as `Authorization: OAuth`, `POST
// /upload:<id>` takes the bytes at the `file_offset` header and answers the handle `{h}`, `GET
// /upload:<id>` answers the `file_offset` it has), published by `POST /{page-id}/videos` with
// `fbuploader_video_file_chunk`, each handle once; set to the older phases only
// (`resumableUploads = false`) the uploads endpoint answers Graph's "Unsupported post request",
// and a video starts a session, takes chunks at the offsets it answers, and is published by
// `finish`. A new post may stay out of /{page-id}/posts for some reads (`listLag`),
// as a read after a write may not see it yet.
import { graphError, graphToken, metaTime, objectNotFound, transientError } from './metaGraph.ts';
import { META_APP, type MetaStandIn, metaOauthRoutes } from './metaOauth.ts';
import {
  type Answer,
  json,
  type RawAnswer,
  type Received,
  type StandIn,
  startStandIn,
} from './standIn.ts';

export type FacebookPost = {
  id: string;
  pageId: string;
  message: string;
  link: string | undefined;
  /** The unpublished photos it carries, or its one published photo. */
  photos: string[];
  created: number;
  /** Reads of /{page-id}/posts left before it is listed. */
  hiddenFor: number;
};

export type FacebookPhoto = {
  id: string;
  pageId: string;
  bytes: number;
  mime: string;
  published: boolean;
  attachedTo: string | undefined;
};

export type FacebookVideo = {
  id: string;
  pageId: string;
  sessionId: string;
  size: number;
  received: number;
  transfers: { start: number; bytes: number }[];
  finished: boolean;
  title: string | undefined;
  description: string | undefined;
  created: number;
};

/** A Resumable Upload API session. */
export type FacebookUpload = {
  /** `upload:<id>` without its `?sig=…`. */
  session: string;
  sig: string;
  fileName: string;
  fileType: string;
  length: number;
  bytes: Buffer;
  /** Each POST to the session: the offset it gave and the bytes it carried. */
  posts: { offset: number; bytes: number }[];
  handle: string | undefined;
  /** The video published with its handle. */
  usedBy: string | undefined;
};

export type FacebookStandIn = StandIn &
  Omit<MetaStandIn, keyof StandIn> & {
    posts: FacebookPost[];
    photos: Map<string, FacebookPhoto>;
    videos: Map<string, FacebookVideo>;
    uploads: Map<string, FacebookUpload>;
    /** Whether POST /{app-id}/uploads exists (false: only the older `upload_phase` calls). */
    resumableUploads: boolean;
    /** The next upload POST takes at most this many of its bytes, then its answer is lost (a 503). */
    takeOnlyNextUpload: number | undefined;
    /** Called when an upload POST has taken its bytes, before Facebook answers (a test kills the worker here). */
    onUpload: ((upload: FacebookUpload) => void) | undefined;
    /** The answer to the next upload POST, once it has taken the bytes (a hostile answer). */
    answerNextUpload: Answer | RawAnswer | undefined;
    /** The chunk size the video upload asks for. */
    chunkBytes: number;
    /** How many reads of /{page-id}/posts a new post stays out of. */
    listLag: number;
    /** Whether the Page token may read insights (read_insights). */
    insights: boolean;
    /** The next post made (or video finished) is answered with a transient 500, as if its answer were lost. */
    loseNextAnswer: boolean;
    /** Transfers let through before one is answered 503 (undefined: none fails). */
    transfersBeforeFailure: number | undefined;
    /** The next transfer's chunk is taken, and its answer lost (a 503). */
    loseNextTransferAnswer: boolean;
    /** Called before a transfer's chunk is taken; true: it is not taken (a 503). */
    onTransfer: ((video: FacebookVideo) => boolean) | undefined;
    /** Called when a post is made, before Facebook answers (a test kills the worker here). */
    onCreate: ((post: FacebookPost) => void) | undefined;
    /** A Page token of `page` as /me/accounts gives it, for a long-lived user token. */
    pageToken(userToken: string, pageId?: string): Promise<string>;
    /** Every Page token stops working (the user token still renews them). */
    expirePageTokens(): void;
  };

/** multipart/form-data as Graph reads it: fields, and files with their bytes. */
function multipartOf(r: Received): {
  fields: Record<string, string>;
  files: Record<string, Buffer>;
} {
  const type = String(r.headers['content-type'] ?? '');
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
  const fields: Record<string, string> = {};
  const files: Record<string, Buffer> = {};
  if (!type.startsWith('multipart/form-data') || !boundary) return { fields, files };
  const sep = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let at = r.raw.indexOf(sep);
  while (at !== -1) {
    const next = r.raw.indexOf(sep, at + sep.length);
    if (next === -1) break;
    const part = r.raw.subarray(at + sep.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const body = part.subarray(split + 4);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    if (name !== undefined) {
      if (/filename="/.test(head)) files[name] = Buffer.from(body);
      else fields[name] = body.toString('utf8');
    }
    at = next;
  }
  return { fields, files };
}

export async function startFacebookStandIn(
  redirectUri = 'http://127.0.0.1/cb',
): Promise<FacebookStandIn> {
  const { route: oauth, helpers } = metaOauthRoutes('facebook', redirectUri);
  const posts: FacebookPost[] = [];
  const photos = new Map<string, FacebookPhoto>();
  const videos = new Map<string, FacebookVideo>();
  const sessions = new Map<string, string>();
  let seq = 9_000_000_000_000;
  const nextId = () => String(++seq);
  let self!: FacebookStandIn;

  const expired = () =>
    graphError(400, 190, 'Error validating access token: Session has expired.', {
      error_subcode: 463,
    });
  /** The Page a request's token speaks for, when it is a live Page token. */
  const pageOf = (r: Received) => {
    const given = graphToken(r) ?? multipartOf(r).fields.access_token;
    const t = given ? helpers.tokens.get(given) : undefined;
    return t && t.kind === 'page' && t.expires > Date.now() ? t.user.split('|')[1] : undefined;
  };
  /** The answer to the call `loseNextAnswer` loses (once): a transient 500. */
  const lostAnswer = () => {
    if (!self.loseNextAnswer) return undefined;
    self.loseNextAnswer = false;
    return transientError();
  };
  const unavailable = () =>
    graphError(503, 2, 'Service temporarily unavailable', { is_transient: true });
  const permalinkOf = (post: FacebookPost) =>
    `https://www.facebook.com/${post.pageId}/posts/${post.id.split('_')[1]}`;

  const makePost = (
    pageId: string,
    message: string,
    more: Partial<FacebookPost>,
  ): FacebookPost | Answer => {
    const latest = posts.filter((p) => p.pageId === pageId).at(-1);
    if (message && latest?.message === message)
      return graphError(400, 506, '(#506) Duplicate status message', {
        error_user_title: 'Duplicate post',
        error_user_msg: 'You cannot post duplicate posts consecutively.',
      });
    const post: FacebookPost = {
      id: `${pageId}_${nextId()}`,
      pageId,
      message,
      link: undefined,
      photos: [],
      created: Date.now(),
      hiddenFor: self.listLag,
      ...more,
    };
    posts.push(post);
    self.onCreate?.(post);
    const lost = lostAnswer();
    if (lost) return lost;
    return post;
  };

  const publishing = (r: Received): Answer | RawAnswer | undefined => {
    const m = /^\/v25\.0\/(.*)$/.exec(r.path);
    if (!m) return undefined;
    const path = `/${m[1]}`;
    const appUploads = /^\/(\d+)\/uploads$/.exec(path)?.[1];
    if (appUploads && r.method === 'POST') return openUpload(appUploads, r);
    if (path.startsWith('/upload:')) return upload(path.slice(1), r);
    const pageMatch = /^\/(\d+)\/(feed|photos|videos|posts)$/.exec(path);
    if (pageMatch) {
      const [, pageId, edge] = pageMatch;
      const page = pageOf(r);
      if (!page) return expired();
      if (page !== pageId)
        return graphError(
          403,
          200,
          '(#200) The user hasn’t authorized the application to perform this action',
        );
      if (r.method === 'POST' && edge === 'feed') {
        const f = r.form;
        const attached = Object.keys(f)
          .filter((k) => /^attached_media\[\d+\]$/.test(k))
          .map((k) => (JSON.parse(f[k]!) as { media_fbid?: string }).media_fbid ?? '');
        for (const id of attached) {
          const photo = photos.get(id);
          if (!photo || photo.pageId !== pageId || photo.published || photo.attachedTo)
            return graphError(
              400,
              100,
              `(#100) param attached_media[0] has an invalid media_fbid ${id}`,
            );
        }
        if (!f.message && !f.link && !attached.length)
          return graphError(400, 100, '(#100) Missing message or attachment');
        const made = makePost(pageId!, f.message ?? '', { link: f.link, photos: attached });
        if (!('id' in made)) return made;
        for (const id of attached) photos.get(id)!.attachedTo = made.id;
        return json(200, { id: made.id });
      }
      if (r.method === 'POST' && edge === 'photos') {
        const { fields, files } = multipartOf(r);
        const source = files.source;
        if (!source?.length) return graphError(400, 324, '(#324) Requires upload file');
        const published = fields.published !== 'false';
        const photo: FacebookPhoto = {
          id: nextId(),
          pageId: pageId!,
          bytes: source.length,
          mime: 'image',
          published,
          attachedTo: undefined,
        };
        if (!published) {
          photos.set(photo.id, photo);
          return json(200, { id: photo.id });
        }
        const made = makePost(pageId!, fields.message ?? '', { photos: [photo.id] });
        if (!('id' in made)) return made;
        photo.attachedTo = made.id;
        photos.set(photo.id, photo);
        return json(200, { id: photo.id, post_id: made.id });
      }
      if (r.method === 'POST' && edge === 'videos') return video(pageId!, r);
      if (r.method === 'GET' && edge === 'videos') {
        const listed = [...videos.values()]
          .filter((v) => v.pageId === pageId && v.finished)
          .reverse()
          .slice(0, Number(r.query.limit ?? 25));
        return json(200, {
          data: listed.map((v) => ({
            id: v.id,
            ...(v.description ? { description: v.description } : {}),
            created_time: metaTime(v.created),
            permalink_url: `/${v.pageId}/videos/${v.id}/`,
          })),
          paging: { cursors: { before: 'QVFIUk', after: 'QVFIUl' } },
        });
      }
      if (r.method === 'GET' && edge === 'posts') {
        const since = Number(r.query.since ?? 0) * 1000;
        const listed = posts
          .filter((p) => p.pageId === pageId && p.created >= since)
          .filter((p) => {
            if (p.hiddenFor <= 0) return true;
            p.hiddenFor--;
            return false;
          })
          .reverse()
          .slice(0, Number(r.query.limit ?? 25));
        return json(200, {
          data: listed.map((p) => ({
            id: p.id,
            ...(p.message ? { message: p.message } : {}),
            created_time: metaTime(p.created),
            permalink_url: permalinkOf(p),
            ...(String(r.query.fields).includes('reactions')
              ? {
                  reactions: { data: [], summary: { total_count: 7 } },
                  comments: { data: [], summary: { order: 'ranked', total_count: 3 } },
                  shares: { count: 2 },
                }
              : {}),
          })),
          paging: { cursors: { before: 'QVFIUk', after: 'QVFIUl' } },
        });
      }
      return undefined;
    }
    if (r.method !== 'GET') return undefined;
    const insights = /^\/(\d+_\d+)\/insights$/.exec(path)?.[1];
    if (insights) {
      if (!pageOf(r)) return expired();
      if (!self.insights)
        return graphError(
          400,
          10,
          '(#10) Requires read_insights permission to access this endpoint',
        );
      return json(200, {
        data: [
          {
            name: 'post_impressions_unique',
            period: 'lifetime',
            values: [{ value: 42 }],
            title: 'Lifetime Post Total Reach',
            id: `${insights}/insights/post_impressions_unique/lifetime`,
          },
        ],
        paging: {},
      });
    }
    const one = /^\/(\d+(?:_\d+)?)$/.exec(path)?.[1];
    if (path === '/' || (one && !helpers.pages.some((p) => p.id === one))) {
      const page = pageOf(r);
      if (!page) return expired();
      const ids = path === '/' ? String(r.query.ids ?? '').split(',') : [one!];
      const answer: Record<string, unknown> = {};
      for (const id of ids) {
        const post = posts.find((p) => p.id === id && p.pageId === page);
        const vid = videos.get(id);
        if (post)
          answer[id] = {
            id,
            permalink_url: permalinkOf(post),
            reactions: { data: [], summary: { total_count: 7 } },
            comments: { data: [], summary: { order: 'ranked', total_count: 3 } },
            shares: { count: 2 },
          };
        else if (vid && vid.pageId === page)
          answer[id] = {
            id,
            permalink_url: `/${vid.pageId}/videos/${vid.id}/`,
            status: {
              video_status: vid.finished ? 'ready' : 'upload_complete',
              uploading_phase: { status: vid.received === vid.size ? 'complete' : 'in_progress' },
              publishing_phase: { status: vid.finished ? 'complete' : 'not_started' },
            },
            reactions: { data: [], summary: { total_count: 5 } },
            comments: { data: [], summary: { total_count: 1 } },
          };
        else return objectNotFound(id, 'GET');
      }
      return json(200, path === '/' ? answer : answer[one!]);
    }
    return undefined;
  };

  /** The user or Page a token given as `Authorization: OAuth` (or access_token) speaks for. */
  const uploaderOf = (r: Received) => {
    const given =
      /^OAuth (.+)$/.exec(String(r.headers.authorization ?? ''))?.[1] ?? r.query.access_token;
    const t = given ? helpers.tokens.get(given) : undefined;
    return t && (t.kind === 'long' || t.kind === 'page') && t.expires > Date.now()
      ? t.user
      : undefined;
  };
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  /** POST /{app-id}/uploads: a session for a file of the given name, length and type. */
  const openUpload = (appId: string, r: Received): Answer => {
    if (!self.resumableUploads || appId !== META_APP.id) return objectNotFound(appId, 'POST');
    if (!uploaderOf(r)) return expired();
    const { file_name: fileName, file_type: fileType } = r.query;
    const length = Number(r.query.file_length);
    if (!fileName || !Number.isInteger(length) || length <= 0)
      return graphError(400, 100, '(#100) The parameter file_length is required');
    if (
      !['application/pdf', 'image/jpeg', 'image/jpg', 'image/png', 'video/mp4'].includes(
        fileType ?? '',
      )
    )
      return graphError(
        400,
        100,
        '(#100) Param file_type must be one of {application/pdf, image/jpeg, image/jpg, image/png, video/mp4}',
      );
    const session = `upload:${b64(`1:attachment:${nextId()}?file_length=${length}`).replace(/=+$/, '')}`;
    const up: FacebookUpload = {
      session,
      sig: `AR${nextId()}`,
      fileName,
      fileType: fileType!,
      length,
      bytes: Buffer.alloc(0),
      posts: [],
      handle: undefined,
      usedBy: undefined,
    };
    self.uploads.set(session, up);
    return json(200, { id: `${session}?sig=${up.sig}` });
  };

  /** GET /upload:<id>: the offset reached; POST: bytes at `file_offset`, the handle once whole. */
  const upload = (session: string, r: Received): Answer | RawAnswer => {
    const up = self.uploads.get(session);
    if (!uploaderOf(r)) return expired();
    if (!up || r.query.sig !== up.sig) return objectNotFound(session, 'POST');
    if (r.method === 'GET')
      return json(200, { id: `${session}?sig=${up.sig}`, file_offset: up.bytes.length });
    if (r.method !== 'POST') return objectNotFound(session, 'POST');
    const offset = Number(r.headers.file_offset);
    if (!Number.isInteger(offset) || offset !== up.bytes.length)
      return graphError(400, 100, `(#100) The file_offset must be ${up.bytes.length}`);
    const room = up.length - up.bytes.length;
    if (r.raw.length > room)
      return graphError(400, 100, '(#100) More bytes than the file_length of the session');
    const take = self.takeOnlyNextUpload;
    self.takeOnlyNextUpload = undefined;
    const taken = take === undefined ? r.raw : r.raw.subarray(0, take);
    up.posts.push({ offset, bytes: taken.length });
    up.bytes = Buffer.concat([up.bytes, taken]);
    if (up.bytes.length === up.length && !up.handle)
      up.handle = `2:${b64(up.fileName)}:${b64(up.fileType)}:AR${nextId()}:e:${Date.now()}`;
    self.onUpload?.(up);
    if (take !== undefined) return unavailable();
    const told = self.answerNextUpload;
    self.answerNextUpload = undefined;
    if (told) return told;
    if (!up.handle)
      return json(200, { id: `${session}?sig=${up.sig}`, file_offset: up.bytes.length });
    return json(200, { h: up.handle });
  };

  /** POST /{page-id}/videos with an upload's handle: the video, published. */
  const publishHandle = (pageId: string, fields: Record<string, string>): Answer => {
    const up = [...self.uploads.values()].find(
      (u) => u.handle === fields.fbuploader_video_file_chunk,
    );
    if (!up || up.usedBy || up.fileType !== 'video/mp4')
      return graphError(
        400,
        100,
        '(#100) Invalid parameter: fbuploader_video_file_chunk is not a valid file handle',
      );
    const v: FacebookVideo = {
      id: nextId(),
      pageId,
      sessionId: up.session,
      size: up.length,
      received: up.length,
      transfers: [],
      finished: true,
      title: fields.title,
      description: fields.description,
      created: Date.now(),
    };
    videos.set(v.id, v);
    up.usedBy = v.id;
    const lost = lostAnswer();
    if (lost) return lost;
    return json(200, { id: v.id });
  };

  /** The resumable upload: start, transfer at the offsets answered, finish. */
  const video = (pageId: string, r: Received): Answer => {
    const isMultipart = String(r.headers['content-type']).startsWith('multipart/');
    const { fields, files } = isMultipart ? multipartOf(r) : { fields: r.form, files: {} };
    if (fields.fbuploader_video_file_chunk !== undefined) return publishHandle(pageId, fields);
    if (fields.upload_phase === 'start') {
      const size = Number(fields.file_size);
      if (!Number.isInteger(size) || size <= 0)
        return graphError(400, 100, '(#100) Param file_size must be a positive integer');
      const v: FacebookVideo = {
        id: nextId(),
        pageId,
        sessionId: nextId(),
        size,
        received: 0,
        transfers: [],
        finished: false,
        title: undefined,
        description: undefined,
        created: Date.now(),
      };
      videos.set(v.id, v);
      sessions.set(v.sessionId, v.id);
      return json(200, {
        video_id: v.id,
        upload_session_id: v.sessionId,
        start_offset: '0',
        end_offset: String(Math.min(self.chunkBytes, size)),
      });
    }
    const v = videos.get(sessions.get(fields.upload_session_id ?? '') ?? '');
    if (!v || v.pageId !== pageId)
      return graphError(
        400,
        6000,
        'There was a problem uploading your video file. Please try again.',
        {
          error_subcode: 1363030,
        },
      );
    if (fields.upload_phase === 'transfer') {
      if (self.transfersBeforeFailure !== undefined && self.transfersBeforeFailure-- <= 0) {
        self.transfersBeforeFailure = undefined;
        return unavailable();
      }
      if (self.onTransfer?.(v)) return unavailable();
      const chunk = files.video_file_chunk;
      if (Number(fields.start_offset) !== v.received || !chunk?.length)
        return graphError(
          400,
          6001,
          'There was a problem uploading your video. Please try again.',
          {
            error_subcode: 1363037,
            error_user_msg: `The start offset should be ${v.received}.`,
          },
        );
      v.transfers.push({ start: v.received, bytes: chunk.length });
      v.received += chunk.length;
      if (self.loseNextTransferAnswer) {
        self.loseNextTransferAnswer = false;
        return unavailable();
      }
      const end = Math.min(v.received + self.chunkBytes, v.size);
      return json(200, { start_offset: String(v.received), end_offset: String(end) });
    }
    if (fields.upload_phase === 'finish') {
      if (v.finished || v.received !== v.size)
        return graphError(
          400,
          6000,
          'There was a problem uploading your video file. Please try again.',
          {
            error_subcode: 1363030,
          },
        );
      v.finished = true;
      v.created = Date.now();
      v.title = fields.title;
      v.description = fields.description;
      const lost = lostAnswer();
      if (lost) return lost;
      return json(200, { success: true });
    }
    return graphError(400, 100, '(#100) Invalid upload_phase');
  };

  const standIn = await startStandIn((r) => publishing(r) ?? oauth(r));
  self = {
    ...standIn,
    ...helpers,
    posts,
    photos,
    videos,
    uploads: new Map(),
    resumableUploads: true,
    takeOnlyNextUpload: undefined,
    onUpload: undefined,
    answerNextUpload: undefined,
    chunkBytes: 16 * 1024,
    listLag: 0,
    insights: true,
    loseNextAnswer: false,
    transfersBeforeFailure: undefined,
    loseNextTransferAnswer: false,
    onTransfer: undefined,
    onCreate: undefined,
    async pageToken(userToken, pageId = helpers.pages[0]!.id) {
      const q = new URLSearchParams({ fields: 'id,name,access_token', access_token: userToken });
      const res = await fetch(`${standIn.url}/v25.0/${pageId}?${q}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    expirePageTokens() {
      for (const [token, t] of helpers.tokens) if (t.kind === 'page') helpers.tokens.delete(token);
    },
  };
  return self;
}
