// Threads (Meta): a post is a media container made by POST /{user}/threads (TEXT, an IMAGE or
// VIDEO that Threads fetches from the service's public address, or a CAROUSEL of 2-20
// `is_carousel_item` children), polled until FINISHED and published by
// POST /{user}/threads_publish; a thread is a chain of such posts, each a reply
// (`reply_to_id`) to the one before. The publishing quota (`threads_publishing_limit`) is
// read before publishing: a full one waits for room. Each container is published at most once
// by what the attempt remembers (../meta/container.ts); a part already published is skipped
// on a retry. Docs: developers.facebook.com/docs/threads (posts, reference/publishing,
// troubleshooting, overview, insights).
import { publishedParts } from '../../kernel/platformFit.ts';
import {
  type Connector,
  finalFailure,
  type PastPost,
  type PostCounts,
  PublicationError,
  type PublicationSteps,
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
import { GraphRefusal, isPermissionError } from '../meta/graphErrors.ts';
import { quotaUnlessUnreadable } from '../meta/readings.ts';
import { Count, claimedTime, plainText } from '../readings.ts';
import {
  fetchFailed,
  findOwnPost,
  insightsOfMedia,
  ownPosts,
  permalinkOfMedia,
  publishingQuota,
  readStatus,
  THREADS,
  VERSION,
} from './api.ts';

export type ThreadsDeps = ContainerDeps & {
  /** Public addresses of the post's media, which Threads fetches; without it, media posts fail. */
  publicMedia?: PublicMedia;
};

/** A full quota is read again after this: Threads' window moves, and says not when room comes. */
const QUOTA_RETRY_MS = 60 * 60_000;

/** The container parameters of one attached medium. */
function mediaParams(publicMedia: PublicMedia, m: PublishMedia): Record<string, string> {
  const url = publicMedia.urlOf(m);
  return {
    ...(m.kind === 'video'
      ? { media_type: 'VIDEO', video_url: url }
      : { media_type: 'IMAGE', image_url: url }),
    ...(m.alt ? { alt_text: m.alt.slice(0, 1000) } : {}),
  };
}

export function threadsConnector(deps: ThreadsDeps): Connector {
  const { callAs, platformOf } = containerAccounts(deps, {
    name: THREADS,
    version: VERSION,
    createEdge: 'threads',
    publishEdge: 'threads_publish',
    statusFields: 'status,error_message',
    readStatus,
    fetchFailed,
  });

  /** The container of part `i` (and its children), made once. */
  async function containerOf(
    p: ContainerPlatform,
    steps: PublicationSteps,
    req: PublishRequest,
    i: number,
    text: string,
    parent: string | undefined,
  ): Promise<string> {
    const step = `threads.${i}.container`;
    const known = await steps.recall(step);
    if (known) return known;
    const media = i === 0 ? req.post.media : [];
    if (media.length && !deps.publicMedia)
      throw finalFailure(
        "Threads fetches a post's media from the service's public addresses, which this worker has none of (PUBLIC_BASE_URL); the post cannot carry media here.",
      );
    const withText: Record<string, string> = text.trim() ? { text } : {};
    const reply: Record<string, string> = parent ? { reply_to_id: parent } : {};
    if (media.length <= 1) {
      const one = media[0];
      const params = one ? mediaParams(deps.publicMedia!, one) : { media_type: 'TEXT' };
      return containerOnce(p, steps, step, { ...params, ...withText, ...reply });
    }
    if (media.length > 20)
      throw finalFailure(
        `A Threads carousel carries 2 to 20 items; this post has ${media.length}.`,
      );
    const items = media.map((m) => mediaParams(deps.publicMedia!, m));
    return carouselOnce(p, steps, `threads.${i}`, step, items, { ...withText, ...reply });
  }

  /** Room in the account's quota for one more post (or reply), or a wait for it. */
  async function ensureRoom(call: GraphCall, userId: string, reply: boolean) {
    const quota = await quotaUnlessUnreadable(publishingQuota(call, userId));
    if (!quota) return;
    const q = reply ? (quota.replies ?? quota.posts) : quota.posts;
    if (q.used < q.total) return;
    const at = new Date(Date.now() + Math.min(QUOTA_RETRY_MS, q.seconds * 1000));
    const what = reply ? 'replies' : 'posts';
    throw new PublicationError(
      `Threads' publishing quota for this account is full (${q.used} of ${q.total} ${what} in ` +
        `${Math.round(q.seconds / 3600)} hours); the publication waits for room (next try ${at.toISOString()}).`,
      { retryable: true, retryAt: at },
    );
  }

  return {
    async publish(req) {
      const call = callAs(req.account);
      const userId = userIdOf(THREADS, req.account);
      const p = platformOf(call, userId, req.signal);
      const { post, steps } = req;
      const parts = publishedParts(post.kind, post.body, post.hashtags);
      let first: string | undefined;
      let parent: string | undefined;
      for (const [i, text] of parts.entries()) {
        req.signal.throwIfAborted();
        const prefix = `threads.${i}`;
        let media = await publishedMedia(steps, prefix);
        if (!media) {
          const id = await containerOf(p, steps, req, i, text, parent);
          const state = (await awaitContainers(p, steps, `${prefix}.polling`, [id])).get(id)!;
          if (state === 'FINISHED') await ensureRoom(call, userId, parent !== undefined);
          const replyTo = parent;
          media = await publishOnce(p, steps, prefix, id, state, (sinceMs) =>
            findOwnPost(call, userId, { text, parent: replyTo, sinceMs }),
          );
        }
        first ??= media;
        parent = media;
      }
      return { externalPostId: first!, permalinkUrl: await permalinkOfMedia(call, first!) };
    },

    async postMetrics(account, externalIds) {
      const call = callAs(account);
      const counts = new Map<string, PostCounts>();
      for (const id of externalIds) {
        if (!GraphId.safeParse(id).success) continue;
        let m: Map<string, number>;
        try {
          m = await insightsOfMedia(call, id);
        } catch (err) {
          // Without threads_manage_insights no post has insights: none are read.
          if (err instanceof GraphRefusal && isPermissionError(err.code)) break;
          // A post Threads no longer has (code 100) is not counted.
          if (err instanceof GraphRefusal && err.code === 100) continue;
          throw err;
        }
        const n = (name: string) => Count.parse(m.get(name));
        counts.set(id, {
          likes: n('likes'),
          reposts: n('reposts'),
          replies: n('replies'),
          quotes: m.has('quotes') ? n('quotes') : null,
          views: m.has('views') ? n('views') : null,
        });
      }
      return counts;
    },

    async recentPosts(account, limit) {
      const call = callAs(account);
      const posts: PastPost[] = [];
      for (const t of await ownPosts(call, userIdOf(THREADS, account), limit)) {
        if (t.media_type === 'REPOST_FACADE') continue;
        posts.push({
          id: t.id,
          text: plainText(t.text ?? ''),
          url: t.permalink && /^https:\/\//.test(t.permalink) ? t.permalink : null,
          postedAt: claimedTime(t.timestamp ?? '', new Date().toISOString()),
          likes: 0,
          reposts: 0,
          replies: 0,
        });
      }
      return posts.slice(0, limit);
    },
  };
}
