// X (API v2, docs.x.com): posts by POST /2/tweets with the account's OAuth 2 user token, media
// first (./media.ts), a thread as a chain of replies, the permalink x.com/{username}/status/{id}.
// X takes no idempotency key, so each part is posted at most once per attempt by what the
// attempt remembers (PublicationSteps): the time it was about to post a part, then the part's
// id. A retry skips the parts with an id and looks for the others among the account's recent
// posts before posting them (./readBack.ts); X's 403 for duplicate content is read back the
// same way, never answered with a new post. Counts by GET /2/tweets (public_metrics), the
// account's history by GET /2/users/{id}/tweets.
import { z } from 'zod';
import { publishedParts } from '../../kernel/platformFit.ts';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import type { Storage } from '../../storage/storage.ts';
import {
  type ConnectedAccountAccess,
  type Connector,
  firstBegun,
  type PastPost,
  type PostCounts,
  PublicationError,
  type PublicationSteps,
} from '../connector.ts';
import { CHECK_THE_ACCOUNT, documented, PLATFORM_TIMEOUT_MS } from '../http.ts';
import { Count, itemsOf, plainText } from '../readings.ts';
import {
  failedInExchange,
  getDocumented,
  isDuplicate,
  Me,
  TweetId,
  X,
  type XCall,
  xClient,
} from './api.ts';
import { uploadAll } from './media.ts';
import { findPosted } from './readBack.ts';

export type XDeps = {
  outbound: OutboundPolicy;
  storage: Storage;
  /** X_API_URL, without a trailing slash. */
  apiUrl: string;
  requestTimeoutMs?: number;
};

const Created = z.object({ data: z.object({ id: TweetId }) });
/** public_metrics: the repost count is `retweet_count` in the docs, `repost_count` in the OpenAPI. */
const PublicMetrics = z.object({
  retweet_count: Count.optional(),
  repost_count: Count.optional(),
  reply_count: Count,
  like_count: Count,
  quote_count: Count.nullish(),
  impression_count: Count.nullish(),
});
const WithMetrics = z.object({ id: TweetId, public_metrics: PublicMetrics });
const Lookup = z.object({ data: itemsOf(WithMetrics).optional() });
const PastTweet = z.object({
  id: TweetId,
  text: z.string().max(100_000).transform(plainText),
  created_at: z.iso.datetime({ offset: true }),
  public_metrics: PublicMetrics.optional(),
});
const Timeline = z.object({
  data: itemsOf(PastTweet).optional(),
  meta: z.object({ next_token: z.string().max(500).optional() }).optional(),
});
/** GET /2/tweets takes at most 100 ids. */
const LOOKUP_MAX = 100;

const repostsOf = (m: z.output<typeof PublicMetrics>) => m.retweet_count ?? m.repost_count ?? 0;

type Identity = { userId: string; username: string };

/** The account's id and username: kept with its tokens when it connected, else asked of X. */
async function identityOf(call: XCall, account: ConnectedAccountAccess): Promise<Identity> {
  const { user_id, username } = account.credentials;
  if (typeof user_id === 'string' && TweetId.safeParse(user_id).success) {
    const name = typeof username === 'string' ? username : account.handle.replace(/^@/, '');
    return { userId: user_id, username: name };
  }
  const me = await getDocumented(call, '/2/users/me', Me);
  return { userId: me.data.id, username: me.data.username };
}

export const permalinkOf = (username: string, id: string) =>
  `https://x.com/${encodeURIComponent(username)}/status/${id}`;

/**
 * Posts part `i` of an attempt once: its remembered id, or the post X already has (read back
 * when an earlier try got as far as posting it), or a new post whose id is remembered at once.
 */
async function postPartOnce(
  call: XCall,
  steps: PublicationSteps,
  userId: string,
  i: number,
  part: { text: string; parent: string | undefined; mediaIds: string[] },
): Promise<string> {
  const idStep = `part.${i}.id`;
  const known = await steps.recall(idStep);
  if (known) return known;
  const triedAt = await steps.recall(`part.${i}.posting`);
  const lookFor = (since: number) => findPosted(call, userId, { ...part, since });
  let id = triedAt ? await lookFor(Date.parse(triedAt)) : undefined;
  if (!id) {
    const since = await firstBegun(steps, `part.${i}.posting`);
    const body = {
      text: part.text,
      ...(part.mediaIds.length ? { media: { media_ids: part.mediaIds } } : {}),
      ...(part.parent ? { reply: { in_reply_to_tweet_id: part.parent } } : {}),
    };
    let answered = false;
    try {
      const res = await call('/2/tweets', { method: 'POST', json: body });
      answered = true;
      id = documented(X, 'POST /2/tweets', res, Created, CHECK_THE_ACCOUNT).data.id;
    } catch (err) {
      // An answer to this POST we cannot read (garbled, without an id, too large) may hide a
      // made post; a retryable failure is looked for by the next try, X's own refusals made
      // nothing, and a failure to get a token is that failure: X never saw the post, and
      // reading back would spend the same refresh token again.
      const unread =
        (answered || failedInExchange(err)) &&
        err instanceof PublicationError &&
        !err.retryable &&
        err.status === undefined;
      if (unread) {
        const found = await lookFor(since).catch(() => undefined);
        if (found) {
          await steps.remember(idStep, found);
          return found;
        }
      }
      if (!isDuplicate(err)) throw err;
      id = await lookFor(since);
      if (!id)
        throw new PublicationError(
          `X refused ${i === 0 ? 'the post' : `part ${i + 1} of the thread`} as a duplicate of ` +
            'an earlier post with the same text, which is not among the posts this publication ' +
            'made; change the text to post it again.',
          { retryable: false, status: 403 },
        );
    }
  }
  await steps.remember(idStep, id!);
  return id!;
}

export function xConnector(deps: XDeps): Connector {
  const callAs = (account: ConnectedAccountAccess) =>
    xClient(deps.outbound, deps.apiUrl, account, deps.requestTimeoutMs ?? PLATFORM_TIMEOUT_MS);

  return {
    async publish(req) {
      const call = callAs(req.account);
      const { post } = req;
      const me = await identityOf(call, req.account);
      const mediaIds = await uploadAll(
        { call, storage: deps.storage, steps: req.steps, signal: req.signal },
        post.media,
      );
      let first: string | undefined;
      let parent: string | undefined;
      for (const [i, text] of publishedParts(post.kind, post.body, post.hashtags).entries()) {
        req.signal.throwIfAborted();
        const id = await postPartOnce(call, req.steps, me.userId, i, {
          text,
          parent,
          mediaIds: i === 0 ? mediaIds : [],
        });
        first ??= id;
        parent = id;
      }
      return { externalPostId: first!, permalinkUrl: permalinkOf(me.username, first!) };
    },

    async postMetrics(account, externalIds) {
      const call = callAs(account);
      const counts = new Map<string, PostCounts>();
      for (let i = 0; i < externalIds.length; i += LOOKUP_MAX) {
        const ids = externalIds.slice(i, i + LOOKUP_MAX).join(',');
        const query = new URLSearchParams({ ids, 'tweet.fields': 'public_metrics' });
        const found = await getDocumented(call, `/2/tweets?${query}`, Lookup);
        // A deleted post comes back under `errors`, not `data`: it is simply not counted.
        for (const t of found.data ?? [])
          counts.set(t.id, {
            likes: t.public_metrics.like_count,
            reposts: repostsOf(t.public_metrics),
            replies: t.public_metrics.reply_count,
            quotes: t.public_metrics.quote_count ?? null,
            views: t.public_metrics.impression_count ?? null,
          });
      }
      return counts;
    },

    async recentPosts(account, limit) {
      const call = callAs(account);
      const me = await identityOf(call, account);
      const posts: PastPost[] = [];
      let token: string | undefined;
      while (posts.length < limit) {
        const query = new URLSearchParams({
          max_results: String(Math.min(100, Math.max(5, limit - posts.length))),
          exclude: 'retweets,replies',
          'tweet.fields': 'created_at,public_metrics',
          ...(token ? { pagination_token: token } : {}),
        });
        const path = `/2/users/${encodeURIComponent(me.userId)}/tweets?${query}`;
        const page = await getDocumented(call, path, Timeline);
        const fresh = (page.data ?? []).filter((t) => !posts.some((p) => p.id === t.id));
        for (const t of fresh)
          posts.push({
            id: t.id,
            text: t.text,
            url: permalinkOf(me.username, t.id),
            postedAt: t.created_at,
            likes: t.public_metrics?.like_count ?? 0,
            reposts: t.public_metrics ? repostsOf(t.public_metrics) : 0,
            replies: t.public_metrics?.reply_count ?? 0,
          });
        token = page.meta?.next_token;
        if (!fresh.length || !token) break;
      }
      return posts.slice(0, limit);
    },
  };
}
