// The interface every platform connector implements. The publication job is the only caller
// of `publish`; the real connectors (Bluesky, Mastodon, ...) plug in here.
import type { Kind, MediaKind, Platform } from '../kernel/platforms.ts';

export type PublishMedia = {
  id: string;
  kind: MediaKind;
  mime: string;
  storageKey: string | null;
  width: number | null;
  height: number | null;
  /** Alternative text, for platforms that take it. */
  alt: string | null;
};

/**
 * Public, expiring addresses of a post's media, for platforms that fetch media themselves
 * (Threads, Instagram): each serves exactly one asset's bytes, without a
 * credential, for PUBLIC_MEDIA_TTL_S (a day: as long as a Meta container can still be
 * published). The addresses live under PUBLIC_BASE_URL, which the platform must reach.
 */
export type PublicMedia = {
  /** The address of `media`'s bytes, valid for a day from now. */
  urlOf(media: PublishMedia): string;
  /**
   * Why a platform on the internet cannot fetch from PUBLIC_BASE_URL (it is a loopback or
   * private address), naming the variable; null when it looks reachable.
   */
  unreachable: string | null;
};

/**
 * The final failure of a post whose media the platform could not fetch from its public
 * address: the platform's own reason, and the variable the operator must set right.
 */
export const mediaNotFetched = (platformName: string, reason: string) =>
  new PublicationError(
    // The platform may quote the signed address it was given: a day's access to the asset,
    // which the post's error (shown, delivered in events) must not hand on.
    `${platformName} could not fetch the post's media from the service (${reason.replace(/https?:\/\/\S+/g, '[the media address]')}). It fetches media from addresses under PUBLIC_BASE_URL, which must be reachable from the internet.`,
    { retryable: false },
  );

export type PublishRequest = {
  post: {
    id: string;
    uuid: string;
    platform: Platform;
    kind: Kind;
    body: string;
    hashtags: string | null;
    headline: string | null;
    /** When the post was due: stable across retries, so records built from it are too. */
    scheduledFor: Date;
    /** Attached library assets, in order (`storageKey` reads their bytes from storage). */
    media: PublishMedia[];
  };
  /** The brand's connected account on the post's platform, with its opened credentials. */
  account: ConnectedAccountAccess & { id: string };
  /** What this attempt has done so far, kept across crashes and retries (see PublicationSteps). */
  steps: PublicationSteps;
  /**
   * Stable for one publication attempt of one post, also across job retries: a connector
   * must make a repeated call with the same key publish nothing new (the platform's
   * idempotency key, or a record key derived from it) and answer the same result.
   */
  idempotencyKey: string;
  signal: AbortSignal;
};

/**
 * The idempotency key of record `index` of a multi-record publication (a thread's parts):
 * the attempt's own key for the first, a derived one for each later part.
 */
export const partKey = (idempotencyKey: string, index: number) =>
  index === 0 ? idempotencyKey : `${idempotencyKey}.${index}`;

export type Publication = {
  /** The post's id on the platform. */
  externalPostId: string;
  /** Public address of the post; some platforms (and some Story results) have none. */
  permalinkUrl: string | null;
};

/** One of the connected account's own past posts, with its counts where the platform gives them. */
export type PastPost = {
  id: string;
  text: string;
  url: string | null;
  postedAt: string;
  likes: number;
  reposts: number;
  replies: number;
};

export type Connector = {
  publish(req: PublishRequest): Promise<Publication>;
  /**
   * The account's own recent posts, newest first, at most `limit` (no reposts or replies).
   * A platform without it is skipped by the history import, not failed.
   */
  recentPosts?(account: ConnectedAccountAccess, limit: number): Promise<PastPost[]>;
  /**
   * The counts of our published posts on the platform, by their external ids; a post the
   * platform no longer has is absent. A platform without it is skipped by the collection.
   */
  postMetrics?(
    account: ConnectedAccountAccess,
    externalIds: string[],
  ): Promise<Map<string, PostCounts>>;
  /**
   * A public profile's recent posts with their counts, newest first (no reposts or replies),
   * read with the connected account's access (its instance, for Mastodon). Empty when the
   * platform has no such profile.
   */
  profilePosts?(
    account: ConnectedAccountAccess,
    handle: string,
    limit: number,
  ): Promise<PastPost[]>;
  /** What is trending where the account posts, most popular first. */
  trends?(account: ConnectedAccountAccess, limit: number): Promise<Trend[]>;
  /**
   * Third parties' posts that mention the account or answer one of its posts, newer than
   * `cursor` (what an earlier reading answered; null: the newest only), at most about
   * `limit`, with the cursor to keep. A platform without it is skipped by the collection.
   */
  inbound?(account: ConnectedAccountAccess, cursor: string | null, limit: number): Promise<Inbound>;
  /**
   * Sends a reply to a third party's post; a repeated call with the same idempotency key
   * sends nothing new and answers the same reply.
   */
  reply?(account: ConnectedAccountAccess, req: ReplyRequest): Promise<Publication>;
  /**
   * Recent public posts holding `query` (a term, or a #tag), newest first, as `keyword`
   * posts; the account's own are left out.
   */
  search?(account: ConnectedAccountAccess, query: string, limit: number): Promise<InboundPost[]>;
  /**
   * Likes or reposts a post, or follows its author; a repeated call with the same
   * idempotency key does nothing new. Answers the platform's id of what it made, if any.
   */
  act?(account: ConnectedAccountAccess, req: ActRequest): Promise<{ externalId: string | null }>;
};

export type ActRequest = {
  action: 'like' | 'repost' | 'follow';
  to: Pick<InboundPost, 'id' | 'authorId' | 'replyRef'>;
  idempotencyKey: string;
  requestedAt: Date;
};

/** A third party's post that mentions the connected account or answers one of its posts. */
export type InboundPost = {
  kind: 'mention' | 'reply' | 'keyword';
  /** The platform's id of the post (a status id on the account's instance, an at:// URI). */
  id: string;
  url: string | null;
  authorHandle: string;
  /** The platform's id of the author (an account id, a DID). */
  authorId: string;
  /** Their text, as plain text: a third party's words. */
  text: string;
  postedAt: string;
  /** The platform's ids of the posts it answers (its parent, its thread's root): ours among them? */
  answers: string[];
  /** What a reply to it needs beyond its id (Bluesky: its cid and its thread's root). */
  replyRef: Record<string, string> | null;
};

/** What an inbound reading found, and where the next one starts. */
export type Inbound = { items: InboundPost[]; cursor: string | null };

export type ReplyRequest = {
  /** The post answered, as the inbound reading gave it. */
  to: Pick<InboundPost, 'id' | 'authorHandle' | 'replyRef'>;
  text: string;
  /** One a suggestion, the same across retries: a repeated call sends nothing new. */
  idempotencyKey: string;
  /** When the reply was asked for: stable across retries, so records built from it are too. */
  requestedAt: Date;
};

/** A trending topic as a platform gives it: its text is a third party's. */
export type Trend = {
  topic: string;
  url: string | null;
  /** Uses in the platform's latest period (a day on Mastodon). */
  volume: number;
};

/** A connected account as a read method gets it: its handle and opened credentials. */
export type ConnectedAccountAccess = {
  handle: string;
  credentials: Record<string, unknown>;
  /** Stores changed credentials (a refreshed session). */
  saveCredentials(next: Record<string, unknown>): Promise<void>;
  /** An OAuth platform's access token, kept fresh (absent for Bluesky and Mastodon). */
  tokens?: AccessTokens;
};

/**
 * An OAuth connection's access token. `current()` answers one that is valid for a while yet,
 * refreshing it first (under the connection's lock, so two jobs never spend one refresh token)
 * when it is about to expire. `refused(token)` is for a 401 to `token`: it refreshes once,
 * unless another job already has, and answers the new token. A refresh the platform refuses
 * marks the connection `needs_reconnect` and throws a PublicationError with `reconnect`.
 */
export type AccessTokens = {
  current(): Promise<string>;
  refused(token: string): Promise<string>;
};

/**
 * What one publication attempt has done so far, kept in Postgres across crashes and job
 * retries of the same attempt (same post, same publication). A connector remembers what
 * identifies an irreversible call *before* making it (an upload, a container id, the time it
 * posted) and what each call produced after it (a thread part's id), and recalls them on a
 * retry to resume, or to read back what the platform already has, rather than repeat it.
 */
export type PublicationSteps = {
  recall(step: string): Promise<string | undefined>;
  /** Keeps `value` under `step`; a value kept already stays (the first one wins). */
  remember(step: string, value: string): Promise<void>;
};

/**
 * When this attempt first began `step` (ms): now, remembered, on its first run; the time an
 * earlier run remembered on the next ones (a read-back looks from then on).
 */
export async function firstBegun(steps: PublicationSteps, step: string): Promise<number> {
  await steps.remember(step, new Date().toISOString());
  return Date.parse((await steps.recall(step)) ?? new Date().toISOString());
}

/** A post's engagement as a platform counts it; null where the platform gives no count. */
export type PostCounts = {
  likes: number;
  reposts: number;
  replies: number;
  quotes: number | null;
  views: number | null;
};

/** Platform connectors by platform; a platform without one cannot publish yet. */
export type Connectors = Partial<Record<Platform, Connector>>;

/** Platforms whose connector has `method` (the reading crons queue jobs for these only). */
export const platformsWith = (connectors: Connectors, method: keyof Connector) =>
  Object.entries(connectors)
    .filter(([, c]) => c?.[method])
    .map(([platform]) => platform);

/**
 * A failure a connector understood. `retryable` failures (network, 5xx, 429) are retried by
 * the job with backoff; the others (the platform refused the post) fail the post at once.
 */
export class PublicationError extends Error {
  readonly retryable: boolean;
  /** The platform refused the credentials: the account needs reconnecting. */
  readonly reconnect: boolean;
  /** The platform's `Retry-After`: the next attempt waits at least this long. */
  readonly retryAfterMs: number | undefined;
  /**
   * When the platform's rate limit resets (X's `x-rate-limit-reset`, LinkedIn's midnight
   * UTC): the publication is rescheduled then, without spending one of its attempts.
   */
  readonly retryAt: Date | undefined;
  /** The platform's HTTP status, when it answered with a refusal. */
  readonly status: number | undefined;
  constructor(
    message: string,
    opts: {
      retryable: boolean;
      reconnect?: boolean;
      retryAfterMs?: number;
      retryAt?: Date;
      status?: number;
      cause?: unknown;
    },
  ) {
    super(message, { cause: opts.cause });
    this.name = 'PublicationError';
    this.retryable = opts.retryable;
    this.reconnect = opts.reconnect ?? false;
    this.retryAfterMs = opts.retryAfterMs;
    this.retryAt = opts.retryAt;
    this.status = opts.status;
  }
}

/** What a failure says when the platform may have the post although we cannot tell. */
export const CHECK_THE_ACCOUNT =
  'the post may exist there all the same: check the account before scheduling it again.';

/** A failure no retry mends (the platform refused the post, or it cannot be told to): final. */
export const finalFailure = (message: string) =>
  new PublicationError(message, { retryable: false });
