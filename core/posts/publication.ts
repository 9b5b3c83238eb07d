// Publishing a scheduled post at its time: claim it (`scheduled` to `publishing`), hand it to
// the connector of the brand's connected account, then record `published` (only with the
// platform's id of the post) or `failed` with its event row and the event's webhook
// deliveries, in one transaction. A post is published at most once per publication_seq: a
// retried job resumes the same attempt with the same idempotency key.
import {
  type CredentialsKey,
  openCredentials,
  sealCredentials,
} from '../connections/credentials.ts';
import {
  markNeedsReconnect,
  recordAccountError,
  saveSealedCredentials,
} from '../connections/db.ts';
import {
  type Connectors,
  type Publication,
  PublicationError,
  type PublishMedia,
  type PublishRequest,
} from '../connectors/connector.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import {
  type PublishPostPayload,
  publicationJobKey,
  retryPublicationLater,
} from '../jobs/tasks.ts';
import type { Kind, Platform } from '../kernel/platforms.ts';
import { queueEventDeliveries } from '../webhooks/delivery.ts';
import { postEventBody } from './events.ts';

type Claim = {
  claimed: boolean;
  id: string;
  uuid: string;
  account_id: string;
  platform: Platform;
  kind: Kind;
  body: string;
  hashtags: string | null;
  headline: string | null;
  scheduled_for: Date;
  publication_seq: number;
  account: {
    id: string;
    handle: string;
    status: 'active' | 'needs_reconnect';
    credentials: string | null;
  } | null;
  media: PublishMedia[];
};

// Takes a due post, or finds the attempt a crashed or failed run of this job left in
// `publishing`. A post whose time moved or that left `scheduled` is not returned.
const CLAIM = `
with claimed as (
  update posts set status = 'publishing', publication_seq = publication_seq + 1,
                   updated_at = now()
  where id = $1 and status = 'scheduled' and scheduled_for = $2::timestamptz
  returning *
), a as (
  insert into audit_log (account_id, post_id, action, from_status, to_status, actor_kind)
  select account_id, id, 'publish', 'scheduled', 'publishing', 'system' from claimed
), target as (
  select true as claimed, c.* from claimed c
  union all
  select false, p.* from posts p
  where p.id = $1 and p.status = 'publishing' and p.scheduled_for = $2::timestamptz
    and not exists (select 1 from claimed)
)
select t.claimed, t.id, t.uuid, t.account_id, t.platform, t.kind, t.body, t.hashtags,
       t.headline, t.scheduled_for, t.publication_seq,
       (select json_build_object('id', ca.id::text, 'handle', ca.handle, 'status', ca.status,
                                 'credentials', encode(ca.credentials, 'base64'))
        from connected_accounts ca
        where ca.brand_id = t.brand_id and ca.platform = t.platform) as account,
       coalesce((select json_agg(json_build_object('id', a.id::text, 'kind', a.kind,
                                                   'mime', a.mime, 'storageKey', a.storage_key,
                                                   'width', a.width, 'height', a.height,
                                                   'alt', a.alt_text)
                                 order by pa.position)
                 from post_assets pa join assets a on a.id = pa.asset_id
                 where pa.post_id = t.id), '[]') as media
from target t`;

const FINISH = `
with p as (
  update posts set status = $3, external_post_id = $4, permalink_url = $5, error = $6,
                   published_at = case when $3 = 'published' then now() end,
                   updated_at = now()
  where id = $1 and status = 'publishing' and publication_seq = $2
  returning *
), e as (
  insert into events (account_id, type, post_id, body)
  select account_id, 'post.' || status, id, $7 from p
  returning id, account_id, type
), a as (
  insert into audit_log (account_id, post_id, action, from_status, to_status, actor_kind,
                         detail)
  select account_id, id, status, 'publishing', status, 'system', $8::jsonb from p
)
select e.id, e.account_id, e.type from e`;

type Outcome =
  | { status: 'published'; publication: Publication }
  | { status: 'failed'; error: string };

/** A platform's id of a post: a non-empty string, never a stringified nothing. */
const isExternalId = (id: unknown): id is string =>
  typeof id === 'string' && id.trim() !== '' && id !== 'undefined' && id !== 'null';

/** Records the outcome; answers what was recorded (`skipped`: the attempt was no longer current). */
async function finish(pool: Pool, claim: Claim, reported: Outcome): Promise<PublicationResult> {
  // `published` means the platform has the post under an id we keep; without one the
  // outcome is unknown to us, so it is recorded as a failure that says so.
  const outcome: Outcome =
    reported.status === 'published' && !isExternalId(reported.publication.externalPostId)
      ? {
          status: 'failed',
          error:
            `The ${claim.platform} connector reported success without the post's id on ` +
            `${claim.platform}; check the account for the post before scheduling it again.`,
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
    const { rows } = await tx.query<{ id: string; account_id: string; type: string }>({
      name: 'finish_publication',
      text: FINISH,
      values: [
        claim.id,
        claim.publication_seq,
        snapshot.status,
        snapshot.external_post_id,
        snapshot.permalink_url,
        snapshot.error,
        postEventBody(`post.${outcome.status}` as const, snapshot),
        JSON.stringify({ publication_seq: claim.publication_seq, error: snapshot.error }),
      ],
    });
    await queueEventDeliveries(tx, rows);
    return rows.length === 1 ? outcome.status : 'skipped';
  });
}

/** `retrying`: a later job of the same key makes the next attempt (the platform's Retry-After). */
export type PublicationResult = 'published' | 'failed' | 'retrying' | 'skipped';

/** Idempotency key of one publication attempt: the same across retries of that attempt. */
export const idempotencyKey = (claim: Pick<Claim, 'uuid' | 'publication_seq'>) =>
  `${claim.uuid}.${claim.publication_seq}`;

/** The longest Retry-After honoured; a platform asking for more is retried after this. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/** How long a connector may take for one publication. */
const PUBLISH_TIMEOUT_MS = 60_000;

export type PublicationDeps = {
  connectors: Connectors;
  /** Opens connected accounts' credentials; without it, accounts with credentials fail. */
  credentialsKey?: CredentialsKey;
};

/**
 * Runs one publication job. For a retryable failure with attempts left, the post stays
 * `publishing` and the attempt is made again: after the platform's Retry-After by a job this
 * one schedules under the same key, else by Graphile Worker's own retry (this throws).
 * `attempt.number` counts the publication's attempts across those jobs; `max` is its limit.
 */
export async function publishScheduledPost(
  pool: Pool,
  { connectors, credentialsKey }: PublicationDeps,
  job: PublishPostPayload,
  attempt: { number: number; max: number; signal: AbortSignal },
): Promise<PublicationResult> {
  const { rows } = await pool.query<Claim>({
    name: 'claim_publication',
    text: CLAIM,
    values: [job.post_id, job.scheduled_for],
  });
  const claim = rows[0];
  if (!claim) return 'skipped';
  const fail = (error: string) => finish(pool, claim, { status: 'failed', error });

  const { account, platform } = claim;
  if (!account)
    return fail(`The brand has no connected ${platform} account; connect one, then reschedule.`);
  if (account.status === 'needs_reconnect')
    return fail(`The connected ${platform} account ${account.handle} needs to be reconnected.`);
  const connector = connectors[platform];
  if (!connector) return fail(`Publishing to ${platform} is not available in this version.`);
  let credentials: Record<string, unknown> = {};
  if (account.credentials) {
    if (!credentialsKey) return fail('The credentials key is missing; the account cannot be used.');
    try {
      credentials = openCredentials(credentialsKey, Buffer.from(account.credentials, 'base64'));
    } catch {
      return fail(`The stored ${platform} credentials cannot be opened; reconnect the account.`);
    }
  }

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
    account: {
      id: account.id,
      handle: account.handle,
      credentials,
      saveCredentials: async (next) => {
        if (credentialsKey)
          await saveSealedCredentials(pool, account.id, sealCredentials(credentialsKey, next));
      },
    },
    idempotencyKey: idempotencyKey(claim),
    signal: AbortSignal.any([attempt.signal, AbortSignal.timeout(PUBLISH_TIMEOUT_MS)]),
  };
  let publication: Publication;
  try {
    publication = await connector.publish(request);
  } catch (err) {
    const retryable = !(err instanceof PublicationError) || err.retryable;
    if (retryable && attempt.number < attempt.max) {
      if (err instanceof PublicationError && err.retryAfterMs) {
        const delay = Math.min(err.retryAfterMs, MAX_RETRY_AFTER_MS);
        await retryPublicationLater(pool, job, attempt.number, delay);
        return 'retrying';
      }
      throw err;
    }
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof PublicationError && err.reconnect)
      await markNeedsReconnect(pool, account.id, message);
    else await recordAccountError(pool, account.id, message);
    return fail(message);
  }
  return finish(pool, claim, { status: 'published', publication });
}

/** How long a post sits in `publishing` with no job left before the reconciler fails it. */
export const ABANDONED_AFTER_MS = 60_000;

// Posts left `publishing` that no job will ever try again: their publication job (read
// through Graphile Worker's public view) is gone, or is out of attempts and not running,
// e.g. after a worker was killed during the last attempt.
const ABANDONED = `
select p.id, p.platform, p.body, p.publication_seq
from posts p
left join graphile_worker.jobs g on g.key = $1 || p.id
where p.status = 'publishing' and p.updated_at < now() - $2 * interval '1 millisecond'
  and (g.id is null or (g.attempts >= g.max_attempts and g.locked_at is null))
limit 500`;

/**
 * Fails the posts a publication left `publishing` with no attempt to come (the reconciler's
 * cron), each with its reason, `post.failed` event and deliveries. Answers how many.
 */
export async function failAbandonedPublications(pool: Pool): Promise<number> {
  const { rows } = await pool.query<Pick<Claim, 'id' | 'platform' | 'body' | 'publication_seq'>>(
    ABANDONED,
    [publicationJobKey(''), ABANDONED_AFTER_MS],
  );
  let failed = 0;
  for (const row of rows) {
    const error =
      `The publication to ${row.platform} stopped during its last attempt (its worker ended) ` +
      `and will not be tried again; check the account for the post, then schedule it again.`;
    if ((await finish(pool, row as Claim, { status: 'failed', error })) === 'failed') failed++;
  }
  return failed;
}
