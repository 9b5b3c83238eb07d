// Publishing a scheduled post at its time: claim it (`scheduled` to `publishing`), hand it to
// the connector of the brand's connected account, then record `published` (only with the
// platform's id of the post) or `failed` with its event row and the event's webhook
// deliveries, in one transaction. A post is published at most once per publication_seq: a
// retried job resumes the same attempt with the same idempotency key.
import {
  type CredentialsKey,
  keepingSecrets,
  keepRefreshedCredentials,
  type OAuthDeps,
  openCredentials,
  reportPublicationFailure,
  sealCredentials,
  withAccessTokens,
} from '../connections/service.ts';
import {
  type Connectors,
  type Publication,
  PublicationError,
  type PublishRequest,
} from '../connectors/schema.ts';
import { withoutSecrets } from '../connectors/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import {
  type PublishPostPayload,
  publicationJobKey,
  RATE_LIMIT_MAX_WAITS,
  type RateLimitWait,
  retryPublicationLater,
  waitOutRateLimit,
} from '../jobs/tasks.ts';
import { PLATFORM_NAMES } from '../kernel/platformNames.ts';
import { postEventBody, raiseEvents } from '../webhooks/service.ts';
import {
  abandonedPublications,
  claimPublication,
  finishPublication,
  notePublicationWait,
  type PublicationClaim,
} from './db.ts';
import { publicationSteps } from './steps.ts';

type Outcome =
  | { status: 'published'; publication: Publication }
  | { status: 'failed'; error: string };

/** A platform's id of a post: a non-empty string, never a stringified nothing. */
const isExternalId = (id: unknown): id is string =>
  typeof id === 'string' && id.trim() !== '' && id !== 'undefined' && id !== 'null';

/** Records the outcome; answers what was recorded (`skipped`: the attempt was no longer current). */
async function finish(
  pool: Pool,
  claim: PublicationClaim,
  reported: Outcome,
): Promise<PublicationResult> {
  // `published` means the platform has the post under an id we keep; without one the
  // outcome is unknown to us, so it is recorded as a failure that says so.
  const outcome: Outcome =
    reported.status === 'published' && !isExternalId(reported.publication.externalPostId)
      ? {
          status: 'failed',
          error:
            `The ${PLATFORM_NAMES[claim.platform]} connector reported success without the post's id on ` +
            `${PLATFORM_NAMES[claim.platform]}; check the account for the post before scheduling it again.`,
        }
      : reported;
  const snapshot = {
    id: claim.id,
    platform: claim.platform,
    status: outcome.status,
    external_post_id: outcome.status === 'published' ? outcome.publication.externalPostId : null,
    permalink_url: outcome.status === 'published' ? outcome.publication.permalinkUrl : null,
    error: outcome.status === 'failed' ? outcome.error : null,
    body: claim.body,
  };
  return withTransaction(pool, async (tx) => {
    const post = await finishPublication(tx, {
      postId: claim.id,
      publicationSeq: claim.publication_seq,
      status: snapshot.status,
      externalPostId: snapshot.external_post_id,
      permalinkUrl: snapshot.permalink_url,
      error: snapshot.error,
    });
    if (!post) return 'skipped';
    // The outcome, its event and the event's deliveries commit together.
    await raiseEvents(tx, [
      {
        accountId: post.account_id,
        type: `post.${outcome.status}`,
        postId: post.id,
        body: postEventBody(`post.${outcome.status}`, snapshot),
      },
    ]);
    return outcome.status;
  });
}

/** `retrying`: a later job of the same key makes the next attempt (the platform's Retry-After). */
export type PublicationResult = 'published' | 'failed' | 'retrying' | 'skipped';

/** Idempotency key of one publication attempt: the same across retries of that attempt. */
export const idempotencyKey = (claim: Pick<PublicationClaim, 'uuid' | 'publication_seq'>) =>
  `${claim.uuid}.${claim.publication_seq}`;

/** The longest Retry-After honoured; a platform asking for more is retried after this. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * The furthest a rate limit's reset is waited for (a platform's daily limit resets within a
 * day); a reset said to be further is waited for this long, then asked again.
 */
export const MAX_RATE_LIMIT_WAIT_MS = 24 * 3_600_000;

/**
 * When a rate limit the platform answered resets: its reset (`retryAt`), or a 429's
 * Retry-After; undefined for any other failure. A reset further than a day is waited for a day.
 */
function rateLimitWait(err: unknown, now = Date.now()): RateLimitWait | undefined {
  if (!(err instanceof PublicationError) || !err.retryable) return undefined;
  if (err.retryAt && !Number.isNaN(err.retryAt.getTime()))
    return {
      runAt: new Date(Math.min(Math.max(err.retryAt.getTime(), now), now + MAX_RATE_LIMIT_WAIT_MS)),
    };
  if (err.status === 429 && err.retryAfterMs !== undefined)
    return { delayMs: Math.min(err.retryAfterMs, MAX_RATE_LIMIT_WAIT_MS) };
  return undefined;
}

/** How long a connector may take for one publication. */
const PUBLISH_TIMEOUT_MS = 60_000;

export type PublicationDeps = {
  connectors: Connectors;
  /** Opens connected accounts' credentials; without it, accounts with credentials fail. */
  credentialsKey?: CredentialsKey;
  /** Refreshes OAuth platforms' access tokens; without it, their connectors get no `tokens`. */
  oauth?: OAuthDeps;
};

/**
 * Runs one publication job. For a retryable failure with attempts left, the post stays
 * `publishing` and the attempt is made again: after the platform's Retry-After by a job this
 * one schedules under the same key, else by Graphile Worker's own retry (this throws).
 * `attempt.number` counts the publication's attempts across those jobs; `max` is its limit.
 */
export async function publishScheduledPost(
  pool: Pool,
  { connectors, credentialsKey, oauth }: PublicationDeps,
  job: PublishPostPayload,
  attempt: { number: number; max: number; signal: AbortSignal },
): Promise<PublicationResult> {
  const claim = await claimPublication(pool, job.post_id, job.scheduled_for);
  if (!claim) return 'skipped';
  const fail = (error: string) => finish(pool, claim, { status: 'failed', error });

  const { account, platform } = claim;
  const name = PLATFORM_NAMES[platform];
  if (!account)
    return fail(`The brand has no connected ${name} account; connect one, then reschedule.`);
  if (account.status === 'needs_reconnect')
    return fail(`The connected ${name} account ${account.handle} needs to be reconnected.`);
  const connector = connectors[platform];
  if (!connector) return fail(`Publishing to ${name} is not built yet in this version.`);
  let credentials: Record<string, unknown> = {};
  if (account.credentials) {
    if (!credentialsKey) return fail('The credentials key is missing; the account cannot be used.');
    try {
      credentials = openCredentials(credentialsKey, Buffer.from(account.credentials, 'base64'));
    } catch {
      return fail(`The stored ${name} credentials cannot be opened; reconnect the account.`);
    }
  }

  const signal = AbortSignal.any([attempt.signal, AbortSignal.timeout(PUBLISH_TIMEOUT_MS)]);
  const access = {
    id: account.id,
    handle: account.handle,
    credentials,
    saveCredentials: async (next: Record<string, unknown>) => {
      if (credentialsKey)
        await keepRefreshedCredentials(pool, account.id, sealCredentials(credentialsKey, next));
    },
  };
  const held = keepingSecrets(
    credentialsKey
      ? withAccessTokens(
          { pool, credentialsKey, oauth },
          { id: account.id, platform },
          access,
          signal,
        )
      : access,
  );
  const request: PublishRequest = {
    post: {
      id: claim.id,
      uuid: claim.uuid,
      platform,
      kind: claim.kind,
      body: claim.body,
      hashtags: claim.hashtags,
      headline: claim.headline,
      scheduledFor: new Date(claim.scheduled_for),
      media: claim.media,
    },
    account: held.access,
    steps: publicationSteps(pool, { postId: claim.id, publicationSeq: claim.publication_seq }),
    idempotencyKey: idempotencyKey(claim),
    signal,
  };
  let publication: Publication;
  try {
    publication = await connector.publish(request);
  } catch (err) {
    // A rate limit is waited out until its reset without spending an attempt (the attempt
    // it cut short is handed back), a bounded number of times.
    const wait = rateLimitWait(err);
    if (wait && (job.rate_limit_waits ?? 0) < RATE_LIMIT_MAX_WAITS) {
      // The post says why it waits (a quota full, a limit spent) until its outcome replaces it.
      const reason = withoutSecrets((err as Error).message, held.secrets());
      await withTransaction(pool, async (tx) => {
        await notePublicationWait(tx, {
          postId: claim.id,
          publicationSeq: claim.publication_seq,
          reason,
        });
        await waitOutRateLimit(tx, job, attempt.number - 1, wait);
      });
      return 'retrying';
    }
    const retryable = !(err instanceof PublicationError) || err.retryable;
    if (retryable && attempt.number < attempt.max) {
      if (err instanceof PublicationError && err.retryAfterMs) {
        const delay = Math.min(err.retryAfterMs, MAX_RETRY_AFTER_MS);
        await retryPublicationLater(pool, job, attempt.number, delay);
        return 'retrying';
      }
      // The queue logs and keeps the error it is thrown: a token the platform quoted goes too.
      throw withoutSecretsIn(err, held.secrets());
    }
    // What the platform said may quote a token it refused: never kept or shown in clear.
    const message = withoutSecrets(
      err instanceof Error ? err.message : String(err),
      held.secrets(),
    );
    await reportPublicationFailure(pool, account.id, message, {
      reconnect: err instanceof PublicationError && err.reconnect,
    });
    return fail(message);
  }
  return finish(pool, claim, { status: 'published', publication });
}

/**
 * `err`, or a copy whose message has `secrets` redacted (no stack or cause of the original,
 * which would carry them), for an error thrown to the queue to retry.
 */
function withoutSecretsIn(err: unknown, secrets: string[]): unknown {
  if (!(err instanceof Error)) return new Error(withoutSecrets(String(err), secrets));
  const said = withoutSecrets(err.message, secrets);
  if (said === err.message) return err;
  return err instanceof PublicationError
    ? new PublicationError(said, { retryable: err.retryable, status: err.status })
    : new Error(said);
}

/** How long a post sits in `publishing` with no job left before the reconciler fails it. */
export const ABANDONED_AFTER_MS = 60_000;

/**
 * Fails the posts a publication left `publishing` with no attempt to come (the reconciler's
 * cron), each with its reason, `post.failed` event and deliveries. Answers how many.
 */
export async function failAbandonedPublications(pool: Pool): Promise<number> {
  const rows = await abandonedPublications(pool, publicationJobKey(''), ABANDONED_AFTER_MS);
  let failed = 0;
  for (const row of rows) {
    const error =
      `The publication to ${PLATFORM_NAMES[row.platform as keyof typeof PLATFORM_NAMES] ?? row.platform} stopped during its last attempt (its worker ended) ` +
      `and will not be tried again; check the account for the post, then schedule it again.`;
    if ((await finish(pool, row as PublicationClaim, { status: 'failed', error })) === 'failed')
      failed++;
  }
  return failed;
}
