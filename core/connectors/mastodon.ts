// Mastodon (any instance, through the outbound guard): media through POST /api/v2/media (202
// while processing, then polled), then POST /api/v1/statuses with an Idempotency-Key derived
// from the publication attempt, so a retried attempt cannot post twice. The instance's own
// limits (GET /api/v2/instance) are read once an hour and checked before anything is sent.
// Our published posts' counts are read back one status at a time (GET /api/v1/statuses/:id),
// and the instance's trending tags hourly (GET /api/v1/trends/tags).
// Docs: docs.joinmastodon.org/methods/media, /methods/statuses, /methods/instance.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { OutboundPolicy } from '../outbound/guard.ts';
import { publishedParts } from '../posts/platformFit.ts';
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
  fieldOf,
  PLATFORM_TIMEOUT_MS,
  type PlatformRequest,
  type PlatformResponse,
  platformRequest,
  refusal,
} from './http.ts';
import { Address, Count, itemsOf, PlatformId, plainText, withoutControls } from './readings.ts';

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
const Status = z.object({ id: z.string().min(1), url: z.string().nullish() });
const Account = z.object({ username: z.string().min(1), acct: z.string().min(1) });
const OwnAccount = z.object({ id: z.string().min(1) });
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

/** A status's HTML longer than this is not one Mastodon wrote (they hold ~500 characters). */
const MAX_STATUS_HTML = 20_000;

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/**
 * A status's HTML as text: paragraphs and line breaks kept, tags dropped, entities resolved.
 * Linear string work, no DOM: an instance's HTML is not trusted to be shallow or small.
 */
export function statusText(html: string): string {
  if (html.length > MAX_STATUS_HTML) return '';
  const text = html
    .replace(/<br\s*\/?>/gi, '\n')
    // `[^<>]`, not `[^>]`: a run of `<` without `>` is then read in linear time.
    .replace(/<\/p>\s*<p[^<>]*>/gi, '\n\n')
    .replace(/<[^<>]*>/g, '')
    .replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (m, e: string) => {
      const code =
        e[0] === '#'
          ? Number.parseInt(
              e.slice(e[1] === 'x' || e[1] === 'X' ? 2 : 1),
              e[1] === 'x' || e[1] === 'X' ? 16 : 10,
            )
          : undefined;
      if (code !== undefined)
        return code > 31 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
      return ENTITIES[e.toLowerCase()] ?? m;
    });
  return withoutControls(text).trim();
}

type Credentials = { instance: string; access_token: string };

function credentialsOf(c: Record<string, unknown>): Credentials {
  if (typeof c.instance !== 'string' || typeof c.access_token !== 'string')
    throw new PublicationError(
      'The Mastodon account lacks instance or access_token; reconnect it.',
      { retryable: false, reconnect: true },
    );
  return { instance: c.instance.replace(/\/+$/, ''), access_token: c.access_token };
}

type Client = (path: string, init: Omit<PlatformRequest, 'timeoutMs'>) => Promise<PlatformResponse>;

/** GET `path`, read as `schema` documents its answer. */
async function getDocumented<S extends z.ZodType>(call: Client, path: string, schema: S) {
  return documented('Mastodon', `GET ${path}`, await call(path, { method: 'GET' }), schema);
}

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

/** Calls on one instance with one token; non-2xx answers become publication errors. */
function client(policy: OutboundPolicy, creds: Credentials, timeoutMs: number): Client {
  return async (path, init) => {
    const res: PlatformResponse = await platformRequest(
      policy,
      'Mastodon',
      `${creds.instance}${path}`,
      {
        ...init,
        headers: { authorization: `Bearer ${creds.access_token}`, ...init.headers },
        timeoutMs,
      },
    );
    if (res.status >= 200 && res.status < 300) return res;
    throw refusal('Mastodon', res, fieldOf(res, 'error') ?? 'no reason given', {
      reconnect: res.status === 401,
    });
  };
}

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
            `${host} takes ${media.kind}s up to ${limit} bytes; asset ${media.id} has ${size}.`,
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
