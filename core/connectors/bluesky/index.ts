// Bluesky (AT Protocol, plain XRPC): images and video as blobs (com.atproto.repo.uploadBlob),
// facets for links, mentions and tags, threads as reply chains, and every record written with
// com.atproto.repo.putRecord under a TID derived from the publication attempt with
// `swapRecord: null` ("must not exist yet"). A retry of the attempt writes the identical record
// under the same key: the PDS answers it without a new commit, or `InvalidSwap` when the
// record is there already, and either way the post keeps its one record and its `at://` URI.
// Docs: docs.bsky.app/docs/advanced-guides/posts, atproto.com/specs/record-key.
import { z } from 'zod';
import { publishedParts } from '../../kernel/platformFit.ts';
import { formatBytes } from '../../kernel/sizes.ts';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import { readAll, type Storage } from '../../storage/storage.ts';
import {
  type Connector,
  type PastPost,
  type PostCounts,
  PublicationError,
  type PublishMedia,
  type PublishRequest,
  partKey,
} from '../connector.ts';
import { documented, fieldOf, PLATFORM_TIMEOUT_MS, platformRequest, refusal } from '../http.ts';
import { Address, Count, claimedTime, itemsOf, PlatformId, plainText } from '../readings.ts';
import { blueskyEngagement } from './engagement.ts';
import { facetsOf } from './facets.ts';
import { fitImage } from './images.ts';
import {
  handleResolver,
  POST,
  permalinkOf,
  putOnce,
  replyRefOf,
  type StrongRef,
  ThirdPartyPost,
} from './records.ts';
import { BlueskyClient, blueskyCredentials } from './session.ts';
import { deterministicTid } from './tid.ts';

/** app.bsky.embed.video: video blobs up to 100 MB, mp4 only. */
const VIDEO_MAX_BYTES = 100_000_000;

// The fields of the PDS's answers the connector reads (the com.atproto lexicons).
/** uploadBlob: the blob in its JSON form, embedded in the record as it is. */
const UploadedBlob = z.object({
  blob: z.looseObject({
    $type: z.literal('blob'),
    ref: z.object({ $link: z.string().min(1) }),
    mimeType: z.string(),
    size: z.number(),
  }),
});

async function uploadBlob(client: BlueskyClient, data: Buffer, mime: string) {
  const nsid = 'com.atproto.repo.uploadBlob';
  const res = await client.call(nsid, { method: 'POST', bytes: { data, mime } });
  return documented('Bluesky', nsid, res, UploadedBlob).blob;
}

async function embedOf(client: BlueskyClient, storage: Storage, media: PublishMedia[]) {
  if (media.length === 0) return undefined;
  const bytesOf = (m: PublishMedia) => {
    if (!m.storageKey)
      throw new PublicationError(`Asset ${m.id} has no stored bytes.`, { retryable: false });
    return readAll(storage, m.storageKey);
  };
  const [first] = media;
  if (first!.kind === 'video') {
    const size = first!.storageKey ? await storage.size(first!.storageKey) : undefined;
    if ((size ?? 0) > VIDEO_MAX_BYTES)
      throw new PublicationError(`Bluesky takes videos up to ${formatBytes(VIDEO_MAX_BYTES)}.`, {
        retryable: false,
      });
    const video = await uploadBlob(client, await bytesOf(first!), first!.mime);
    const aspectRatio =
      first!.width && first!.height ? { width: first!.width, height: first!.height } : undefined;
    return { $type: 'app.bsky.embed.video', video, ...(aspectRatio ? { aspectRatio } : {}) };
  }
  const images = [];
  for (const m of media) {
    const fitted = await fitImage(await bytesOf(m), m.mime);
    images.push({
      alt: m.alt ?? '',
      image: await uploadBlob(client, fitted.bytes, fitted.mime),
      aspectRatio: { width: fitted.width, height: fitted.height },
    });
  }
  return { $type: 'app.bsky.embed.images', images };
}

export type BlueskyDeps = {
  outbound: OutboundPolicy;
  storage: Storage;
  requestTimeoutMs?: number;
  /** The AppView whose public XRPC answers counts; without it, postMetrics is not offered. */
  appView?: string;
};

// The fields of the AppView's answers the read methods take (app.bsky.feed and
// app.bsky.unspecced lexicons); their text and counts are third parties'.
const Counts = {
  likeCount: Count,
  repostCount: Count,
  replyCount: Count,
};
/** A post view as app.bsky.feed.getPosts answers it. */
const PostView = z.object({
  uri: z.string().startsWith('at://').max(500),
  ...Counts,
  quoteCount: Count.nullish().catch(null),
});
/** URIs getPosts takes at once (its lexicon's maximum). */
const GET_POSTS_MAX = 25;
const GetPosts = z.object({ posts: itemsOf(PostView, GET_POSTS_MAX) });
/** A feed item of app.bsky.feed.getAuthorFeed: a repost or a pin carries a `reason`. */
const FeedItem = z.object({
  post: z.object({
    uri: PlatformId.refine((u) => u.startsWith('at://')),
    record: z.object({
      text: z.string().max(10_000).transform(plainText),
      createdAt: z.iso.datetime({ offset: true }),
    }),
    indexedAt: z.iso.datetime({ offset: true }).catch(''),
    ...Counts,
  }),
  reason: z.unknown().optional(),
});
const AuthorFeed = z.object({ feed: itemsOf(FeedItem) });
/** A post of app.bsky.feed.searchPosts. */
const SearchedPost = z.object(ThirdPartyPost);
const SearchPosts = z.object({ posts: itemsOf(SearchedPost) });
/** A trend of app.bsky.unspecced.getTrends: `link` is a bsky.app path. */
const TrendView = z.object({
  topic: z.string().max(500),
  displayName: z.string().max(500).catch(''),
  link: z.string().max(2000).catch(''),
  postCount: Count,
});
const GetTrends = z.object({ trends: itemsOf(TrendView) });
/** The trends getTrends answers at most (its lexicon's maximum). */
const GET_TRENDS_MAX = 25;
/** The AppView answers these for a method it does not implement (no topics service). */
const NOT_IMPLEMENTED = new Set(['MethodNotImplemented', 'XRPCNotSupported']);

const PastRecord = z.object({
  uri: z.string().min(1),
  value: z.object({
    text: z.string().catch(''),
    createdAt: z.string().catch(''),
    reply: z.unknown().optional(),
  }),
});
const ListRecords = z.object({ records: z.array(PastRecord), cursor: z.string().nullish() });

/** The earlier of two ISO times; an unreadable second one is ignored. */
const earlier = (a: string, b: string) => (b && Date.parse(b) < Date.parse(a) ? b : a);

export function blueskyConnector(deps: BlueskyDeps): Connector {
  const appView = deps.appView;
  /** A GET on the AppView's public XRPC; `missing` names the refusals that mean "none". */
  const appViewGet = async (nsid: string, query: URLSearchParams, missing: string[] = []) => {
    const res = await platformRequest(
      deps.outbound,
      'Bluesky',
      `${appView}/xrpc/${nsid}?${query}`,
      {
        method: 'GET',
        timeoutMs: deps.requestTimeoutMs ?? PLATFORM_TIMEOUT_MS,
      },
    );
    if (res.status >= 200 && res.status < 300) return res;
    if (missing.includes(fieldOf(res, 'error') ?? '')) return undefined;
    throw refusal('Bluesky', res, fieldOf(res, 'message') ?? 'no reason given');
  };
  return {
    ...blueskyEngagement(deps),
    ...(appView && {
      /**
       * Our posts' counts from the AppView's public XRPC (app.bsky.feed.getPosts, 25 at a
       * time): no credential needed; a post the AppView no longer has is absent.
       */
      async postMetrics(_account, externalIds) {
        const counts = new Map<string, PostCounts>();
        for (let i = 0; i < externalIds.length; i += GET_POSTS_MAX) {
          const uris = externalIds.slice(i, i + GET_POSTS_MAX);
          const nsid = 'app.bsky.feed.getPosts';
          const res = await appViewGet(nsid, new URLSearchParams(uris.map((u) => ['uris', u])));
          for (const p of documented('Bluesky', nsid, res!, GetPosts).posts)
            counts.set(p.uri, {
              likes: p.likeCount,
              reposts: p.repostCount,
              replies: p.replyCount,
              quotes: p.quoteCount ?? null,
              views: null,
            });
        }
        return counts;
      },

      /**
       * A profile's own recent posts (app.bsky.feed.getAuthorFeed without replies; reposts
       * and pins left out) with the AppView's counts; empty when no such profile exists.
       * A post's time is the AppView's sort time: the earlier of its claimed creation and
       * its indexing, so a post cannot claim to be younger than it is.
       */
      async profilePosts(_account, handle, limit) {
        const nsid = 'app.bsky.feed.getAuthorFeed';
        const query = new URLSearchParams({
          actor: handle.replace(/^@/, ''),
          limit: String(Math.min(100, limit)),
          filter: 'posts_no_replies',
        });
        const res = await appViewGet(nsid, query, ['InvalidRequest', 'AccountTakedown']);
        if (!res) return [];
        return documented('Bluesky', nsid, res, AuthorFeed)
          .feed.filter((item) => item.reason === undefined && item.post.record.text)
          .map(({ post }) => ({
            id: post.uri,
            text: post.record.text,
            url: permalinkOf(post.uri),
            postedAt: earlier(post.record.createdAt, post.indexedAt),
            likes: post.likeCount,
            reposts: post.repostCount,
            replies: post.replyCount,
          }))
          .slice(0, limit);
      },

      /**
       * Recent posts holding `query` (app.bsky.feed.searchPosts, latest first), as keyword
       * posts; the account's own left out; none where the AppView has no search.
       */
      async search(account, query, limit) {
        const nsid = 'app.bsky.feed.searchPosts';
        const q = new URLSearchParams({
          q: query,
          limit: String(Math.min(25, limit)),
          sort: 'latest',
        });
        const res = await appViewGet(nsid, q, [...NOT_IMPLEMENTED]);
        if (!res) return [];
        const own = account.handle.replace(/^@/, '').toLowerCase();
        return documented('Bluesky', nsid, res, SearchPosts)
          .posts.filter((p) => p.author.handle.toLowerCase() !== own)
          .map((p) => {
            return {
              kind: 'keyword' as const,
              id: p.uri,
              url: permalinkOf(p.uri),
              authorHandle: p.author.handle,
              authorId: p.author.did,
              text: p.record.text,
              postedAt: claimedTime(p.record.createdAt, p.indexedAt),
              answers: [],
              replyRef: replyRefOf(p),
            };
          });
      },

      /**
       * The network's trends (app.bsky.unspecced.getTrends) with their post counts; none
       * when the AppView has no topics service (it answers MethodNotImplemented).
       */
      async trends(_account, limit) {
        const nsid = 'app.bsky.unspecced.getTrends';
        const query = new URLSearchParams({ limit: String(Math.min(GET_TRENDS_MAX, limit)) });
        const res = await appViewGet(nsid, query, [...NOT_IMPLEMENTED]);
        if (!res) return [];
        return documented('Bluesky', nsid, res, GetTrends).trends.flatMap((t) => {
          const topic = plainText(t.displayName || t.topic);
          if (!topic) return [];
          const url = Address.parse(t.link.startsWith('/') ? `https://bsky.app${t.link}` : t.link);
          return [{ topic, url: url ?? null, volume: t.postCount }];
        });
      },
    }),
    /** The account's own post records from its PDS, newest first, replies left out. */
    async recentPosts(account, limit) {
      const creds = blueskyCredentials(account.credentials);
      const client = new BlueskyClient(
        deps.outbound,
        creds,
        (session) => account.saveCredentials({ ...account.credentials, session }),
        deps.requestTimeoutMs,
      );
      const session = client.session ?? (await client.signIn());
      const posts: PastPost[] = [];
      let cursor: string | undefined;
      for (let page = 0; posts.length < limit && page < 10; page++) {
        const res = await client.call('com.atproto.repo.listRecords', {
          method: 'GET',
          query: {
            repo: session.did,
            collection: POST,
            limit: '100',
            ...(cursor ? { cursor } : {}),
          },
        });
        const list = documented('Bluesky', 'com.atproto.repo.listRecords', res, ListRecords);
        for (const r of list.records)
          if (!r.value.reply && r.value.text)
            posts.push({
              id: r.uri,
              text: r.value.text,
              url: permalinkOf(r.uri),
              postedAt: r.value.createdAt,
              // Counts live in an AppView, which a PDS alone does not answer.
              likes: 0,
              reposts: 0,
              replies: 0,
            });
        if (!list.cursor || !list.records.length) break;
        cursor = list.cursor;
      }
      return posts.slice(0, limit);
    },

    async publish(req: PublishRequest) {
      const creds = blueskyCredentials(req.account.credentials);
      const client = new BlueskyClient(
        deps.outbound,
        creds,
        (session) => req.account.saveCredentials({ ...req.account.credentials, session }),
        deps.requestTimeoutMs,
      );
      const { post } = req;
      const embed = await embedOf(client, deps.storage, post.media);
      const session = client.session ?? (await client.signIn());
      const resolve = handleResolver(client);
      let root: StrongRef | undefined;
      let parent: StrongRef | undefined;
      for (const [i, text] of publishedParts(post.kind, post.body, post.hashtags).entries()) {
        const facets = await facetsOf(text, resolve);
        const record = {
          $type: POST,
          text,
          // Derived from the due time, not the clock, so a retry writes identical bytes.
          createdAt: new Date(post.scheduledFor.getTime() + i).toISOString(),
          ...(facets.length ? { facets } : {}),
          ...(i === 0 && embed ? { embed } : {}),
          ...(root && parent ? { reply: { root, parent } } : {}),
        };
        const rkey = deterministicTid(post.scheduledFor, partKey(req.idempotencyKey, i));
        const ref = await putOnce(client, session, rkey, record);
        root ??= ref;
        parent = ref;
      }
      return { externalPostId: root!.uri, permalinkUrl: permalinkOf(root!.uri) };
    },
  };
}

/**
 * Signs in with the app password for `connect`: answers the handle and the credentials to
 * store, the new session included, so the first publication need not sign in.
 */
export async function verifyBluesky(
  policy: OutboundPolicy,
  credentials: Record<string, unknown>,
): Promise<{ handle: string; credentials: Record<string, unknown> }> {
  const creds = blueskyCredentials(credentials);
  const client = new BlueskyClient(policy, { ...creds, session: undefined }, async () => {});
  const session = await client.signIn();
  return { handle: `@${session.handle}`, credentials: { ...creds, session } };
}
