// Facebook Pages (Graph API, Pages API): a text or link post by POST /{page-id}/feed, one
// photo by POST /{page-id}/photos, several as unpublished photos attached to one feed post,
// a video by Meta's Resumable Upload API and the handle published on the Page
// (./resumableUpload.ts), or the Video API's older phases where the uploads endpoint does not
// exist (./media.ts), as the Page with its Page token. Facebook takes
// no idempotency key, so the attempt remembers the time it was about to post before posting,
// and the post's id the moment Facebook answers; a retry that finds a time but no id reads the
// Page's recent posts first (./readBack.ts), and Facebook's 506 (a duplicate) is read back the
// same way, recorded when it is this publication's post and a final failure quoting Facebook
// when it is not. A video published with a handle is read back among the Page's videos before
// publishing again; by the older phases its id is known from the start, and a retry reads the
// video back before finishing it again. Counts and the Page's past posts: ./readings.ts.
// Docs: developers.facebook.com/documentation/pages-api/posts, …/docs/graph-api/reference/page/feed.
import { z } from 'zod';
import { publishedText } from '../../kernel/platformFit.ts';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import type { Storage } from '../../storage/storage.ts';
import {
  type AccessTokens,
  type ConnectedAccountAccess,
  type Connector,
  finalFailure,
  firstBegun,
  type Publication,
  PublicationError,
  type PublishRequest,
} from '../connector.ts';
import { CHECK_THE_ACCOUNT, documented, PLATFORM_TIMEOUT_MS } from '../http.ts';
import { GRAPH_VERSION, type GraphCall, GraphId } from '../meta/graph.ts';
import { isDuplicate } from '../meta/graphErrors.ts';
import { permalinkOf } from '../meta/readings.ts';
import { FACEBOOK, ObjectId, PostId, pageGraph, permalinkFrom } from './api.ts';
import {
  FINISHING,
  finishedVideo,
  finishVideo,
  type MediaDeps,
  OLDER_SESSION,
  photoUpload,
  transferVideo,
  uploadUnpublishedPhotos,
  videoBytes,
} from './media.ts';
import { findPosted, findVideo } from './readBack.ts';
import { pagePosts, readCounts } from './readings.ts';
import { type ResumableDeps, UploadsUnsupported, uploadedHandle } from './resumableUpload.ts';

export type FacebookDeps = {
  outbound: OutboundPolicy;
  storage: Storage;
  /** FACEBOOK_API_URL and FACEBOOK_VIDEO_URL, without a trailing slash. */
  apiUrl: string;
  videoUrl: string;
  /** FACEBOOK_CLIENT_ID: the app the video upload sessions belong to; without it, the older phases. */
  appId?: string;
  requestTimeoutMs?: number;
};

/** The post's id once Facebook answered (or a read-back found it), and its permalink. */
const POSTED = 'facebook.post';
const PERMALINK = 'facebook.permalink';
/** Remembered just before the post is made: a retry reads back before posting again. */
const POSTING = 'facebook.posting';
/** Remembered when the uploads endpoint answered it does not exist: the older phases are used. */
const OLDER_PHASES = 'facebook.video.older';
/** Remembered just before the handle is published: a retry reads the Page's videos first. */
const PUBLISHING_VIDEO = 'facebook.video.publishing';
/** POST /{page-id}/videos with a handle: the video's id. */
const VideoMade = z.object({ id: ObjectId });

/** POST /{page-id}/feed: the post's id. */
const FeedPost = z.object({ id: PostId });
/** POST /{page-id}/photos (published): the photo's id and its post's. */
const PhotoPost = z.object({ id: ObjectId, post_id: PostId });

/** A post id Facebook answered, taken only when it is one of the Page's (`{page-id}_…`). */
function ownPost(pageId: string, id: string, what: string): string {
  if (id.startsWith(`${pageId}_`)) return id;
  throw finalFailure(
    `Facebook answered ${what} with a post id of another Page; ${CHECK_THE_ACCOUNT}`,
  );
}

function pageIdOf(credentials: Record<string, unknown>): string {
  const { page_id } = credentials;
  if (typeof page_id !== 'string' || !GraphId.safeParse(page_id).success)
    throw new PublicationError(
      'The Facebook connection lacks the numeric id of the Page it posts as (page_id); reconnect it.',
      { retryable: false, reconnect: true },
    );
  return page_id;
}

/**
 * Whether `err` is an answer Facebook gave that could not be read (garbled, without the id):
 * the call may have made what it asked for, so it is looked for before failing. A refusal,
 * a retryable failure or a reconnect made nothing.
 */
const unreadAnswer = (err: unknown) =>
  err instanceof PublicationError && !err.retryable && !err.reconnect && err.status === undefined;

/** The first web address in the text: the post's `link`, which Facebook shows as a preview. */
export const linkOf = (text: string) => /https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]}'"]/.exec(text)?.[0];

/** The permalink of an object Facebook has, read after it was made; none when it cannot be read. */
const permalinkOfObject = (call: GraphCall, id: string) =>
  permalinkOf(call, `/${id}`, 'permalink_url', permalinkFrom);

/** What a post goes out as on Facebook, from its kind and media. */
type Shape =
  | { as: 'feed'; link: string | undefined }
  | { as: 'photo' }
  | { as: 'photos' }
  | { as: 'video' };

function shapeOf(req: PublishRequest, text: string): Shape {
  const { kind, media } = req.post;
  if (kind === 'story' || kind === 'reel' || kind === 'thread')
    throw finalFailure(
      `This version publishes no Facebook ${kind}s: post it as a video or an image.`,
    );
  const videos = media.filter((m) => m.kind === 'video').length;
  if (videos && media.length > 1)
    throw finalFailure('A Facebook post carries one video and nothing else.');
  if (media.some((m) => m.kind === 'audio'))
    throw finalFailure('A Facebook post carries images or a video, not audio.');
  if (videos) return { as: 'video' };
  if (media.length === 1) return { as: 'photo' };
  if (media.length > 1) return { as: 'photos' };
  return { as: 'feed', link: linkOf(text) };
}

export function facebookConnector(deps: FacebookDeps): Connector {
  const timeoutMs = deps.requestTimeoutMs ?? PLATFORM_TIMEOUT_MS;
  const callAs = (account: ConnectedAccountAccess) =>
    pageGraph(deps.outbound, deps, account, timeoutMs);

  /** Records the post: its id kept at once, its permalink after. */
  async function record(
    req: PublishRequest,
    call: GraphCall,
    id: string,
    permalink?: string,
  ): Promise<Publication> {
    await req.steps.remember(POSTED, id);
    const url = permalinkFrom(permalink) ?? (await permalinkOfObject(call, id));
    if (url) await req.steps.remember(PERMALINK, url);
    return { externalPostId: id, permalinkUrl: url };
  }

  /**
   * The token an upload session takes: the person's long-lived user token where the connection
   * keeps one that has not expired (the documented token), else the Page's own.
   */
  function uploadTokens(account: ConnectedAccountAccess): AccessTokens | undefined {
    const { refresh_token: user, refresh_expires_at: until } = account.credentials;
    const live = typeof until !== 'string' || !(Date.parse(until) <= Date.now());
    if (typeof user === 'string' && user && live)
      return {
        current: async () => user,
        refused: async () => {
          throw new PublicationError(
            `${FACEBOOK} refused the person's token for the video upload; reconnect the account.`,
            { retryable: false, reconnect: true },
          );
        },
      };
    return account.tokens;
  }

  async function publishVideo(req: PublishRequest, media: MediaDeps, text: string) {
    const tokens = uploadTokens(req.account);
    const older =
      !deps.appId ||
      !tokens ||
      (await req.steps.recall(OLDER_PHASES)) !== undefined ||
      (await req.steps.recall(OLDER_SESSION)) !== undefined;
    if (!older) {
      const upload: ResumableDeps = {
        outbound: deps.outbound,
        apiUrl: `${deps.apiUrl}/${GRAPH_VERSION}`,
        appId: deps.appId!,
        tokens: tokens!,
        timeoutMs,
        steps: req.steps,
        signal: req.signal,
      };
      const video = req.post.media[0]!;
      try {
        const handle = await uploadedHandle(upload, video, await videoBytes(media, video));
        return await publishHandle(req, media, text, handle);
      } catch (err) {
        if (!(err instanceof UploadsUnsupported)) throw err;
        await req.steps.remember(OLDER_PHASES, 'uploads endpoint unsupported');
      }
    }
    const session = await transferVideo(media, req.post.media[0]!);
    if (await req.steps.recall(FINISHING)) {
      const done = await finishedVideo(media, session.videoId);
      if (done) return record(req, media.call, session.videoId, done.permalink);
    }
    await req.steps.remember(FINISHING, new Date().toISOString());
    await finishVideo(media, session, { title: req.post.headline, description: text });
    return record(req, media.call, session.videoId);
  }

  /**
   * Publishes the uploaded video on the Page once: a retry after the call was made (its answer
   * lost, or unreadable) reads the Page's videos first and records the one it finds.
   */
  async function publishHandle(
    req: PublishRequest,
    media: MediaDeps,
    text: string,
    handle: string,
  ): Promise<Publication> {
    const { call, pageId } = media;
    const triedAt = await req.steps.recall(PUBLISHING_VIDEO);
    const since = await firstBegun(req.steps, PUBLISHING_VIDEO);
    if (triedAt) {
      const found = await findVideo(call, pageId, { text, since });
      if (found) return record(req, call, found.id, found.permalink);
    }
    const what = `POST /${pageId}/videos`;
    let id: string;
    try {
      const res = await call(
        'POST',
        `/${pageId}/videos`,
        {
          ...(req.post.headline ? { title: req.post.headline } : {}),
          description: text,
          fbuploader_video_file_chunk: handle,
        },
        { host: 'video' },
      );
      id = documented(FACEBOOK, what, res, VideoMade, CHECK_THE_ACCOUNT).id;
    } catch (err) {
      // An answer we cannot read may hide a published video.
      if (!unreadAnswer(err)) throw err;
      const found = await findVideo(call, pageId, { text, since }).catch(() => undefined);
      if (found) return record(req, call, found.id, found.permalink);
      throw err;
    }
    return record(req, call, id);
  }

  /** Makes the post once: read back first when an earlier run may have made it. */
  async function postOnce(
    req: PublishRequest,
    media: MediaDeps,
    text: string,
    make: () => Promise<string>,
  ): Promise<Publication> {
    const { call, pageId } = media;
    const triedAt = await req.steps.recall(POSTING);
    const since = await firstBegun(req.steps, POSTING);
    if (triedAt) {
      const found = await findPosted(call, pageId, { text, since });
      if (found) return record(req, call, found.id, found.permalink);
    }
    let id: string;
    try {
      id = await make();
    } catch (err) {
      // A 2xx we cannot read may hide a made post: it is looked for among the Page's posts
      // since this attempt began posting. So is the post a 506 refers to, when an earlier run
      // of the attempt may have made it (a read-back that did not list it yet); on the
      // attempt's first post, a 506 refers to an older post of the Page, not this one.
      const unread = unreadAnswer(err);
      const duplicate = isDuplicate(err);
      if (!unread && !(duplicate && triedAt)) {
        if (!duplicate) throw err;
        throw new PublicationError(
          `Facebook refused the post as a duplicate (${err.reason}); the Page posted the same text ` +
            'before this publication, so nothing was posted: change the text to post it again.',
          { retryable: false, status: err.status },
        );
      }
      const found = await findPosted(call, pageId, { text, since }).catch(() => undefined);
      if (found) return record(req, call, found.id, found.permalink);
      if (unread || !duplicate) throw err;
      throw new PublicationError(
        `Facebook refused the post as a duplicate (${err.reason}) ` +
          `but the Page's recent posts do not show it; ${CHECK_THE_ACCOUNT}`,
        { retryable: false, status: err.status },
      );
    }
    return record(req, call, id);
  }

  return {
    async publish(req) {
      const done = await req.steps.recall(POSTED);
      if (done)
        return { externalPostId: done, permalinkUrl: (await req.steps.recall(PERMALINK)) ?? null };
      const { post } = req;
      const text = publishedText(post.body, post.hashtags);
      const shape = shapeOf(req, text);
      const pageId = pageIdOf(req.account.credentials);
      const call = callAs(req.account);
      const media: MediaDeps = {
        call,
        storage: deps.storage,
        steps: req.steps,
        signal: req.signal,
        pageId,
      };
      if (shape.as === 'video') return publishVideo(req, media, text);

      const feed = `/${pageId}/feed`;
      if (shape.as === 'photos') {
        const photos = await uploadUnpublishedPhotos(media, post.media);
        req.signal.throwIfAborted();
        const attached = Object.fromEntries(
          photos.map((id, i) => [`attached_media[${i}]`, JSON.stringify({ media_fbid: id })]),
        );
        return postOnce(req, media, text, async () => {
          const res = await call('POST', feed, { message: text, ...attached });
          const { id } = documented(FACEBOOK, `POST ${feed}`, res, FeedPost, CHECK_THE_ACCOUNT);
          return ownPost(pageId, id, `POST ${feed}`);
        });
      }
      if (shape.as === 'photo') {
        const file = await photoUpload(media, post.media[0]!);
        const alt = post.media[0]!.alt;
        return postOnce(req, media, text, async () => {
          const res = await call(
            'POST',
            `/${pageId}/photos`,
            {
              published: 'true',
              ...(text ? { message: text } : {}),
              ...(alt ? { alt_text_custom: alt.slice(0, 1000) } : {}),
            },
            { file },
          );
          const what = `POST /${pageId}/photos`;
          const { post_id } = documented(FACEBOOK, what, res, PhotoPost, CHECK_THE_ACCOUNT);
          return ownPost(pageId, post_id, what);
        });
      }
      return postOnce(req, media, text, async () => {
        const res = await call('POST', feed, {
          message: text,
          ...(shape.link ? { link: shape.link } : {}),
        });
        const { id } = documented(FACEBOOK, `POST ${feed}`, res, FeedPost, CHECK_THE_ACCOUNT);
        return ownPost(pageId, id, `POST ${feed}`);
      });
    },

    async postMetrics(account, externalIds) {
      return readCounts(callAs(account), externalIds);
    },

    async recentPosts(account, limit) {
      return pagePosts(callAs(account), pageIdOf(account.credentials), limit);
    },
  };
}
