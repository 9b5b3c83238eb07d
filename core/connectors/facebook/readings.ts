// What is read of a Facebook Page: its posts' counts (reactions, comments and shares summaries
// by ids; views from /{post-id}/insights where the token may read insights), and its own
// recent posts with their counts, for the history import.
// Docs: developers.facebook.com/docs/graph-api/reference/page/feed (reading),
// …/docs/graph-api/reference/post, …/docs/graph-api/reference/insights.
import { z } from 'zod';
import { type PastPost, type PostCounts, PublicationError } from '../connector.ts';
import { type GraphCall, getDocumented } from '../meta/graph.ts';
import { GraphRefusal } from '../meta/graphErrors.ts';
import { Count, claimedTime, itemsOf, MAX_POST_TEXT, plainText } from '../readings.ts';
import { FACEBOOK, ObjectId, PostId, permalinkFrom } from './api.ts';

/** Graph's `?ids=` takes at most 50 ids. */
const IDS_MAX = 50;
const Summary = z
  .object({ summary: z.object({ total_count: Count }) })
  .optional()
  .catch(undefined);
const Counted = z.object({
  id: z.string().max(100),
  reactions: Summary,
  comments: Summary,
  shares: z.object({ count: Count }).optional().catch(undefined),
});
const Insights = z.object({
  data: z
    .array(
      z.object({
        name: z.string().max(200),
        values: z.array(z.object({ value: z.unknown() })).max(100),
      }),
    )
    .max(100),
});

/**
 * Counts of posts (`{page}_{post}`: reactions, comments, shares) and videos (reactions and
 * comments: a video has no shares field), read by ids in batches; a batch Facebook refuses
 * (an id it no longer has fails the whole batch) is read one id at a time, and an id it
 * refuses is left out. Views (post_impressions_unique) where the token may read insights.
 */
export async function readCounts(call: GraphCall, externalIds: string[]) {
  const counts = new Map<string, PostCounts>();
  const posts = externalIds.filter((id) => PostId.safeParse(id).success);
  const videos = externalIds.filter((id) => ObjectId.safeParse(id).success);
  const base = 'reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0)';
  const read = async (ids: string[], fields: string) => {
    const answer = await getDocumented(
      call,
      FACEBOOK,
      '/',
      { ids: ids.join(','), fields },
      z.record(z.string(), z.unknown()),
    );
    for (const id of ids) {
      const c = Counted.safeParse(answer[id]);
      if (!c.success || c.data.id !== id) continue;
      counts.set(id, {
        likes: c.data.reactions?.summary.total_count ?? 0,
        reposts: c.data.shares?.count ?? 0,
        replies: c.data.comments?.summary.total_count ?? 0,
        quotes: null,
        views: null,
      });
    }
  };
  for (const [ids, fields] of [
    [posts, `${base},shares`],
    [videos, base],
  ] as const)
    for (let i = 0; i < ids.length; i += IDS_MAX) {
      const batch = ids.slice(i, i + IDS_MAX);
      try {
        await read(batch, fields);
      } catch (err) {
        if (!(err instanceof GraphRefusal) || err.retryable || batch.length === 1) throw err;
        for (const id of batch) await read([id], fields).catch(() => undefined);
      }
    }
  // Insights need read_insights on the Page: the first refusal stops asking for the rest.
  for (const id of posts) {
    const c = counts.get(id);
    if (!c) continue;
    try {
      const insights = await getDocumented(
        call,
        FACEBOOK,
        `/${id}/insights`,
        { metric: 'post_impressions_unique' },
        Insights,
      );
      const value = insights.data.find((d) => d.name === 'post_impressions_unique')?.values[0]
        ?.value;
      c.views = typeof value === 'number' ? Count.parse(value) : null;
    } catch (err) {
      if (err instanceof PublicationError && err.retryable) throw err;
      break;
    }
  }
  return counts;
}

const PastPagePost = z.object({
  id: PostId,
  message: z.string().max(100_000),
  created_time: z.string().max(40),
  permalink_url: z.string().max(2000).optional().catch(undefined),
  reactions: Summary,
  comments: Summary,
  shares: z.object({ count: Count }).optional().catch(undefined),
});
const PastPosts = z.object({
  data: itemsOf(PastPagePost),
  paging: z
    .object({ cursors: z.object({ after: z.string().max(500).optional() }).optional() })
    .optional()
    .catch(undefined),
});
/** Pages of the Page's posts read at most. */
const MAX_PAGES = 5;

/** The Page's own recent posts with text (GET /{page-id}/posts), newest first, at most `limit`. */
export async function pagePosts(call: GraphCall, pageId: string, limit: number) {
  const posts: PastPost[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES && posts.length < limit; page++) {
    const answer = await getDocumented(
      call,
      FACEBOOK,
      `/${pageId}/posts`,
      {
        fields:
          'id,message,created_time,permalink_url,reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0),shares',
        limit: String(Math.min(100, limit - posts.length)),
        ...(after ? { after } : {}),
      },
      PastPosts,
    );
    const now = new Date().toISOString();
    const fresh = answer.data.filter(
      (p) => p.id.startsWith(`${pageId}_`) && !posts.some((q) => q.id === p.id),
    );
    for (const p of fresh) {
      const text = plainText(p.message).slice(0, MAX_POST_TEXT);
      if (!text) continue;
      posts.push({
        id: p.id,
        text,
        url: permalinkFrom(p.permalink_url),
        postedAt: claimedTime(p.created_time.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'), now),
        likes: p.reactions?.summary.total_count ?? 0,
        reposts: p.shares?.count ?? 0,
        replies: p.comments?.summary.total_count ?? 0,
      });
    }
    after = answer.paging?.cursors?.after;
    if (!fresh.length || !after) break;
  }
  return posts.slice(0, limit);
}
