// Mastodon (any instance, through the outbound guard): media through POST /api/v2/media (202
// while processing, then polled), then POST /api/v1/statuses with an Idempotency-Key derived
// from the publication attempt, so a retried attempt cannot post twice. The instance's own
// limits (GET /api/v2/instance) are read once an hour and checked before anything is sent.
// Our published posts' counts are read back one status at a time (GET /api/v1/statuses/:id),
// and the instance's trending tags hourly (GET /api/v1/trends/tags); mentions and replies in
// mastodonEngagement.ts.
// Docs: docs.joinmastodon.org/methods/media, /methods/statuses, /methods/instance.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { publishedParts } from '../kernel/platformFit.ts';
import { formatBytes } from '../kernel/sizes.ts';
import type { OutboundPolicy } from '../outbound/guard.ts';
import { readAll, type Storage } from '../storage/storage.ts';
import {
  type Connector,
  type PastPost,
  type PostCounts,
  PublicationError,
  type PublishMedia,
  partKey,
} from './connector.ts';
import {
  CHECK_THE_ACCOUNT,
  documented,
  PLATFORM_TIMEOUT_MS,
  type PlatformResponse,
} from './http.ts';
import {
  type Client,
  client,
  credentialsOf,
  getDocumented,
  OwnAccount,
  Status,
  statusText,
} from './mastodonApi.ts';
import { mastodonEngagement } from './mastodonEngagement.ts';
import { Address, Count, itemsOf, PlatformId, plainText } from './readings.ts';

// The fields of Mastodon's answers the connector reads (docs.joinmastodon.org/entities).
/** A limit the instance publishes; anything but a positive number means "not published". */
const Limit = z.number().positive().nullish().catch(null);
const InstanceV2 = z.object({
  configuration: z
    .object({
      statuses: z.object({ max_characters: Limit, max_media_attachments: Limit }).optional(),
      media_attachments: z.object({ image_size_limit: Limit, video_size_limit: Limit }).optional(),
    })
    .optional(),
});
const MediaAttachment = z.object({ id: z.string().min(1), url: z.string().nullish() });
const Account = z.object({ username: z.string().min(1), acct: z.string().min(1) });
/** GET /api/v2/search's accounts (the rest of its answer is not read). */
const Search = z.object({
  accounts: itemsOf(z.object({ id: z.string().min(1).max(200), acct: z.string().max(500) })),
});
const PastStatus = z.object({
  id: PlatformId,
  url: Address,
  content: z.string(),
  created_at: z.iso.datetime({ offset: true }),
  favourites_count: Count,
  reblogs_count: Count,
  replies_count: Count,
});
/** A trending tag (GET /api/v1/trends/tags): its daily history, newest day first. */
const TrendingTag = z.object({
  name: z
    .string()
    .max(500)
    .transform((n) => plainText(n))
    .pipe(z.string().min(1)),
  url: Address,
  history: z.array(z.object({ uses: z.coerce.number().pipe(Count) })).catch([]),
});
/** A status's counts (GET /api/v1/statuses/:id); quotes only on instances that have them. */
const StatusCounts = z.object({
  favourites_count: Count,
  reblogs_count: Count,
  replies_count: Count,
  quotes_count: Count.nullish().catch(null),
});

/** A status as a past post with its counts (the history import, a competitor's posts). */
const pastPost = (s: z.output<typeof PastStatus>): PastPost => ({
  id: s.id,
  text: statusText(s.content),
  url: s.url ?? null,
  postedAt: s.created_at,
  likes: s.favourites_count,
  reposts: s.reblogs_count,
  replies: s.replies_count,
});

export type InstanceLimits = {
  maxCharacters: number;
  maxMedia: number;
  imageSizeLimit: number | null;
  videoSizeLimit: number | null;
};

/** Mastodon's defaults, for instances that do not publish their configuration. */
const DEFAULT_LIMITS: InstanceLimits = {
  maxCharacters: 500,
  maxMedia: 4,
  imageSizeLimit: null,
  videoSizeLimit: null,
};
const LIMITS_TTL_MS = 60 * 60 * 1000;

async function fetchLimits(call: Client): Promise<InstanceLimits> {
  let res: PlatformResponse;
  try {
    res = await call('/api/v2/instance', { method: 'GET' });
  } catch (err) {
    // An older instance without v2 (a 4xx) keeps the defaults; an unreachable one is
    // retried, and one the guard refuses fails.
    if (err instanceof PublicationError && !err.retryable && err.status !== undefined)
      return DEFAULT_LIMITS;
    throw err;
  }
  const conf = documented('Mastodon', 'GET /api/v2/instance', res, InstanceV2).configuration;
  return {
    maxCharacters: conf?.statuses?.max_characters ?? DEFAULT_LIMITS.maxCharacters,
    maxMedia: conf?.statuses?.max_media_attachments ?? DEFAULT_LIMITS.maxMedia,
    imageSizeLimit: conf?.media_attachments?.image_size_limit ?? null,
    videoSizeLimit: conf?.media_attachments?.video_size_limit ?? null,
  };
}

/**
 * Length as Mastodon counts it: characters, with every URL as 23 and a remote mention as its
 * local part only (docs.joinmastodon.org/user/posting/#text).
 */
export function mastodonLength(text: string): number {
  const counted = text
    .replace(/https?:\/\/\S+/g, 'x'.repeat(23))
    .replace(/(^|\s)(@\w+)@[\w.-]+\w/g, '$1$2');
  return [...counted].length;
}

async function uploadMedia(call: Client, storage: Storage, media: PublishMedia) {
  if (!media.storageKey)
    throw new PublicationError('An attached asset has no stored bytes.', { retryable: false });
  const form = new FormData();
  const bytes = await readAll(storage, media.storageKey);
  form.append('file', new Blob([new Uint8Array(bytes)], { type: media.mime }), 'upload');
  if (media.alt) form.append('description', media.alt);
  const encoded = new Request('http://form.invalid', { method: 'POST', body: form });
  const uploaded = await call('/api/v2/media', {
    method: 'POST',
    headers: { 'content-type': encoded.headers.get('content-type')! },
    body: Buffer.from(await encoded.arrayBuffer()),
  });
  const { id } = documented('Mastodon', 'POST /api/v2/media', uploaded, MediaAttachment);
  // 202: still processing; the attachment is usable once it has a url (206 until then).
  for (let i = 0; uploaded.status === 202 && i < 60; i++) {
    const path = `/api/v1/media/${encodeURIComponent(id)}`;
    const polled = await call(path, { method: 'GET' });
    if (polled.status === 200 && documented('Mastodon', `GET ${path}`, polled, MediaAttachment).url)
      return id;
    await sleep(500);
  }
  if (uploaded.status === 202)
    throw new PublicationError('Mastodon is still processing the media.', { retryable: true });
  return id;
}

export type MastodonDeps = {
  outbound: OutboundPolicy;
  storage: Storage;
  /** Per request; tests shorten it. */
  requestTimeoutMs?: number;
};

export function mastodonConnector(deps: MastodonDeps): Connector {
  const limitsByInstance = new Map<string, { limits: InstanceLimits; at: number }>();
  const limitsOf = async (instance: string, call: Client) => {
    const cached = limitsByInstance.get(instance);
    if (cached && Date.now() - cached.at < LIMITS_TTL_MS) return cached.limits;
    const limits = await fetchLimits(call);
    limitsByInstance.set(instance, { limits, at: Date.now() });
    return limits;
  };

  /** Calls with a connected account's token, on its instance. */
  const callAs = (credentials: Record<string, unknown>) =>
    client(deps.outbound, credentialsOf(credentials), deps.requestTimeoutMs ?? PLATFORM_TIMEOUT_MS);

  return {
    ...mastodonEngagement(callAs),

    async recentPosts(account, limit) {
      const call = callAs(account.credentials);
      const me = await getDocumented(call, '/api/v1/accounts/verify_credentials', OwnAccount);
      const posts: PastPost[] = [];
      let maxId: string | undefined;
      while (posts.length < limit) {
        const query = new URLSearchParams({
          limit: String(Math.min(40, limit - posts.length)),
          exclude_reblogs: 'true',
          exclude_replies: 'true',
          ...(maxId ? { max_id: maxId } : {}),
        });
        const path = `/api/v1/accounts/${encodeURIComponent(me.id)}/statuses?${query}`;
        const page = await getDocumented(call, path, itemsOf(PastStatus));
        // An instance that pages back to what it sent already ends the reading.
        const fresh = page.filter((s) => !posts.some((p) => p.id === s.id));
        for (const s of fresh) posts.push(pastPost(s));
        if (!fresh.length) break;
        maxId = fresh.at(-1)!.id;
      }
      return posts.slice(0, limit);
    },

    async postMetrics(account, externalIds) {
      const call = callAs(account.credentials);
      const counts = new Map<string, PostCounts>();
      for (const id of externalIds) {
        const path = `/api/v1/statuses/${encodeURIComponent(id)}`;
        const res = await call(path, { method: 'GET' }).catch((err: unknown) => {
          // A status deleted (404, 410) or hidden (403) since is simply not counted; the
          // account's own refusals (401, 429, 5xx) end the reading.
          if (err instanceof PublicationError && [403, 404, 410].includes(err.status ?? 0))
            return undefined;
          throw err;
        });
        if (!res) continue;
        const s = documented('Mastodon', `GET ${path}`, res, StatusCounts);
        counts.set(id, {
          likes: s.favourites_count,
          reposts: s.reblogs_count,
          replies: s.replies_count,
          quotes: s.quotes_count ?? null,
          views: null,
        });
      }
      return counts;
    },

    /**
     * A profile's posts: found by its handle on the account's instance (accounts/lookup), or,
     * for a remote profile the instance has not seen yet, resolved by the instance through
     * WebFinger (v2 search with `resolve`; the instance fetches, not us) and kept only when
     * the answer is that very handle.
     */
    async profilePosts(account, handle, limit) {
      const call = callAs(account.credentials);
      const missing = (err: unknown) => {
        if (err instanceof PublicationError && err.status === 404) return undefined;
        throw err;
      };
      const lookup = `/api/v1/accounts/lookup?acct=${encodeURIComponent(handle)}`;
      const found = await call(lookup, { method: 'GET' }).catch(missing);
      let profile = found && documented('Mastodon', `GET ${lookup}`, found, OwnAccount);
      if (!profile && handle.includes('@')) {
        const query = new URLSearchParams({ q: handle, type: 'accounts', resolve: 'true' });
        const search = `/api/v2/search?${query}&limit=1`;
        const res = await call(search, { method: 'GET' }).catch(missing);
        const accounts = res ? documented('Mastodon', `GET ${search}`, res, Search).accounts : [];
        profile = accounts.find((a) => a.acct.toLowerCase() === handle.toLowerCase());
      }
      if (!profile) return [];
      const query = new URLSearchParams({
        limit: String(Math.min(40, limit)),
        exclude_reblogs: 'true',
        exclude_replies: 'true',
      });
      const path = `/api/v1/accounts/${encodeURIComponent(profile.id)}/statuses?${query}`;
      return (await getDocumented(call, path, itemsOf(PastStatus))).slice(0, limit).map(pastPost);
    },

    async trends(account, limit) {
      const path = `/api/v1/trends/tags?limit=${Math.min(20, limit)}`;
      const tags = await getDocumented(callAs(account.credentials), path, itemsOf(TrendingTag));
      return tags.map((t) => ({
        topic: t.name,
        url: t.url ?? null,
        volume: t.history[0]?.uses ?? 0,
      }));
    },

    async publish(req) {
      const creds = credentialsOf(req.account.credentials);
      const call = client(deps.outbound, creds, deps.requestTimeoutMs ?? PLATFORM_TIMEOUT_MS);
      const { post } = req;
      const parts = publishedParts(post.kind, post.body, post.hashtags);
      const limits = await limitsOf(creds.instance, call);
      const host = new URL(creds.instance).host;
      const final = (msg: string) => new PublicationError(msg, { retryable: false });
      const long = parts.find((p) => mastodonLength(p) > limits.maxCharacters);
      if (long !== undefined)
        throw final(
          `${host} allows ${limits.maxCharacters} characters a status; this one has ${mastodonLength(long)}.`,
        );
      if (post.media.length > limits.maxMedia)
        throw final(
          `${host} allows ${limits.maxMedia} attachments a status; this post has ${post.media.length}.`,
        );
      for (const media of post.media) {
        const limit = media.kind === 'video' ? limits.videoSizeLimit : limits.imageSizeLimit;
        const size =
          (limit && media.storageKey && (await deps.storage.size(media.storageKey))) || 0;
        if (limit && size > limit)
          throw final(
            `${host} takes ${media.kind}s up to ${formatBytes(limit)}; asset ${media.id} has ${formatBytes(size)}.`,
          );
      }

      const mediaIds: string[] = [];
      for (const media of post.media) mediaIds.push(await uploadMedia(call, deps.storage, media));
      // A thread is a chain of replies; each part has its own idempotency key.
      let first: z.output<typeof Status> | undefined;
      let previous: string | undefined;
      for (const [i, text] of parts.entries()) {
        const res = await call('/api/v1/statuses', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': partKey(req.idempotencyKey, i),
          },
          body: JSON.stringify({
            status: text,
            ...(i === 0 && mediaIds.length ? { media_ids: mediaIds } : {}),
            ...(previous ? { in_reply_to_id: previous } : {}),
          }),
        });
        const status = documented(
          'Mastodon',
          'POST /api/v1/statuses',
          res,
          Status,
          CHECK_THE_ACCOUNT,
        );
        first ??= status;
        previous = status.id;
      }
      return { externalPostId: first!.id, permalinkUrl: first!.url ?? null };
    },
  };
}

/** Checks the token with the instance; answers the handle, `@user@instance`. */
export async function verifyMastodon(policy: OutboundPolicy, credentials: Record<string, unknown>) {
  const creds = credentialsOf(credentials);
  const call = client(policy, creds, PLATFORM_TIMEOUT_MS);
  const path = '/api/v1/accounts/verify_credentials';
  const account = documented(
    'Mastodon',
    `GET ${path}`,
    await call(path, { method: 'GET' }),
    Account,
  );
  return `@${account.acct}@${new URL(creds.instance).host}`;
}
