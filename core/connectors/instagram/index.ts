// Instagram (Instagram API with Instagram Login): a post is a media container made by
// POST /{ig-user}/media from the service's public address of each medium, which Instagram
// fetches itself: an image (`image_url`, with its alt text), a reel (`media_type=REELS`: a
// single video is published as one), a story (`media_type=STORIES`), or a CAROUSEL of 2-10
// `is_carousel_item` children; polled until FINISHED and published by
// POST /{ig-user}/media_publish. The publishing limit (`content_publishing_limit`) is read
// before containers are made and again before publishing: a full one waits for room. Each
// container is published at most once by what the attempt remembers (../meta/container.ts).
// Docs: developers.facebook.com/docs/instagram-platform/content-publishing/ and the
// references of ig-user/media, media_publish, content_publishing_limit and ig-container.
import { publishedText } from '../../kernel/platformFit.ts';
import {
  type Connector,
  finalFailure,
  type PostCounts,
  PublicationError,
  type PublicMedia,
  type PublishMedia,
  type PublishRequest,
} from '../connector.ts';
import { type ContainerDeps, containerAccounts, userIdOf } from '../meta/account.ts';
import {
  awaitContainers,
  type ContainerPlatform,
  carouselOnce,
  containerOnce,
  publishedMedia,
  publishOnce,
} from '../meta/container.ts';
import { type GraphCall, GraphId } from '../meta/graph.ts';
import { GraphRefusal, isPermissionError, PUBLISHING_LIMIT_REACHED } from '../meta/graphErrors.ts';
import { quotaUnlessUnreadable } from '../meta/readings.ts';
import { Count } from '../readings.ts';
import {
  countsOf,
  fetchFailed,
  findOwnMedia,
  INSTAGRAM,
  insightsOfMedia,
  limitFreesAt,
  permalinkOfMedia,
  publishingLimit,
  readStatus,
  VERSION,
} from './api.ts';

export type InstagramDeps = ContainerDeps & {
  /** Public addresses of the post's media, which Instagram fetches; without it, nothing posts. */
  publicMedia?: PublicMedia;
};

/** A full limit whose room cannot be told from the account's media is read again after this. */
const LIMIT_RETRY_MS = 60 * 60_000;
/** Alt text Instagram takes (1,000 characters, as its content publishing page says). */
const ALT_LIMIT = 1_000;

/** The steps of an attempt: the container (and its children), and the media published. */
const CONTAINER = 'instagram.container';
const PREFIX = 'instagram';

type Limit = Awaited<ReturnType<typeof publishingLimit>>;

export function instagramConnector(deps: InstagramDeps): Connector {
  const { callAs, platformOf } = containerAccounts(deps, {
    name: INSTAGRAM,
    version: VERSION,
    createEdge: 'media',
    publishEdge: 'media_publish',
    statusFields: 'status_code,status',
    readStatus,
    fetchFailed,
  });

  /** A medium's container parameters: an image with its alt text, or a video. */
  function mediumParams(
    publicMedia: PublicMedia,
    m: PublishMedia,
    video: string,
  ): Record<string, string> {
    const url = publicMedia.urlOf(m);
    if (m.kind === 'video') return { media_type: video, video_url: url };
    return { image_url: url, ...(m.alt ? { alt_text: m.alt.slice(0, ALT_LIMIT) } : {}) };
  }

  /** The post's container (and its children), made once. */
  async function containerOf(p: ContainerPlatform, req: PublishRequest): Promise<string> {
    const { post, steps } = req;
    const known = await steps.recall(CONTAINER);
    if (known) return known;
    const publicMedia = deps.publicMedia;
    if (!publicMedia)
      throw finalFailure(
        "Instagram fetches a post's media from the service's public addresses (PUBLIC_BASE_URL), which this worker has none of; the post cannot be published here.",
      );
    const caption = publishedText(post.body, post.hashtags);
    const withCaption: Record<string, string> = caption.trim() ? { caption } : {};
    const media = post.media;
    if (!media.length) throw finalFailure('An Instagram post needs an image or a video.');
    if (post.kind === 'story') {
      if (media.length !== 1) throw finalFailure('An Instagram story carries one image or video.');
      const { media_type: _, ...one } = mediumParams(publicMedia, media[0]!, 'STORIES');
      return containerOnce(p, steps, CONTAINER, { media_type: 'STORIES', ...one });
    }
    if (post.kind !== 'carousel') {
      if (media.length !== 1)
        throw finalFailure(
          `An Instagram ${post.kind} post carries one ${post.kind === 'image' ? 'image' : 'video'}; use a carousel for ${media.length}.`,
        );
      const one = mediumParams(publicMedia, media[0]!, 'REELS');
      // Every single video is a reel, shown in the feed too (share_to_feed).
      const reel: Record<string, string> =
        media[0]!.kind === 'video' ? { share_to_feed: 'true' } : {};
      return containerOnce(p, steps, CONTAINER, { ...one, ...reel, ...withCaption });
    }
    if (media.length < 2 || media.length > 10)
      throw finalFailure(
        `An Instagram carousel carries 2 to 10 items; this post has ${media.length}.`,
      );
    const items = media.map((m) => mediumParams(publicMedia, m, 'VIDEO'));
    return carouselOnce(p, steps, PREFIX, CONTAINER, items, withCaption);
  }

  /**
   * The wait for room in a full publishing limit, as a failure the job reschedules: until the
   * oldest of the account's media in the window leaves it, else an hour.
   */
  async function limitWait(call: GraphCall, userId: string, limit: Limit | undefined) {
    const seconds = limit?.seconds ?? 86_400;
    const frees = await limitFreesAt(call, userId, seconds, limit?.total ?? 100).catch(
      () => undefined,
    );
    const at = new Date(
      Math.max(Date.now() + 60_000, frees?.getTime() ?? Date.now() + LIMIT_RETRY_MS),
    );
    const spent = limit?.total
      ? ` (${limit.used} of ${limit.total} posts in ${Math.round(seconds / 3600)} hours)`
      : '';
    return new PublicationError(
      `Instagram's publishing limit for this account is reached${spent}; the publication waits for room (next try ${at.toISOString()}).`,
      { retryable: true, retryAt: at },
    );
  }

  /**
   * Room in the account's limit for one more post, or a wait for it (a limit that cannot be
   * read is Instagram's to enforce on media_publish: 2207042, waited out below).
   */
  async function ensureRoom(call: GraphCall, userId: string) {
    const limit = await quotaUnlessUnreadable(publishingLimit(call, userId));
    if (!limit || limit.total === undefined || limit.used < limit.total) return;
    throw await limitWait(call, userId, limit);
  }

  return {
    async publish(req) {
      const call = callAs(req.account);
      const userId = userIdOf(INSTAGRAM, req.account);
      const p = platformOf(call, userId, req.signal);
      const { post, steps } = req;
      let media = await publishedMedia(steps, PREFIX);
      if (!media) {
        if (!(await steps.recall(CONTAINER))) await ensureRoom(call, userId);
        const id = await containerOf(p, req);
        const state = (await awaitContainers(p, steps, `${PREFIX}.polling`, [id])).get(id)!;
        if (state === 'FINISHED') await ensureRoom(call, userId);
        const caption = publishedText(post.body, post.hashtags);
        try {
          media = await publishOnce(p, steps, PREFIX, id, state, (sinceMs) =>
            findOwnMedia(call, userId, { caption, story: post.kind === 'story' }, sinceMs),
          );
        } catch (err) {
          // The limit filled between our reading and the publish: nothing was published. The
          // Graph layer waits an hour for it; the account's media say when room comes.
          if (err instanceof GraphRefusal && err.subcode === PUBLISHING_LIMIT_REACHED) {
            const limit = await publishingLimit(call, userId).catch(() => undefined);
            throw await limitWait(call, userId, limit);
          }
          throw err;
        }
      }
      return { externalPostId: media, permalinkUrl: await permalinkOfMedia(call, media) };
    },

    async postMetrics(account, externalIds) {
      const call = callAs(account);
      const counts = new Map<string, PostCounts>();
      let insights = true;
      for (const id of externalIds) {
        if (!GraphId.safeParse(id).success) continue;
        const n = (v: number | undefined) => Count.parse(v);
        try {
          if (insights) {
            try {
              const m = await insightsOfMedia(call, id);
              counts.set(id, {
                likes: n(m.get('likes')),
                reposts: n(m.get('shares')),
                replies: n(m.get('comments')),
                quotes: null,
                views: m.has('views') ? n(m.get('views')) : null,
              });
              continue;
            } catch (err) {
              // Without instagram_business_manage_insights no media has insights: the counts
              // a basic token reads are taken instead, for this media and the rest.
              if (!(err instanceof GraphRefusal) || !isPermissionError(err.code)) throw err;
              insights = false;
            }
          }
          const c = await countsOf(call, id);
          counts.set(id, {
            likes: n(c.like_count),
            reposts: 0,
            replies: n(c.comments_count),
            quotes: null,
            views: null,
          });
        } catch (err) {
          // Media Instagram no longer has (code 100) is not counted.
          if (err instanceof GraphRefusal && err.code === 100) continue;
          throw err;
        }
      }
      return counts;
    },
  };
}
