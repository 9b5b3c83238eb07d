// Publishing a scheduled post at its time: claim it (`scheduled` to `publishing`), hand it to
// the connector of the brand's connected account, then record `published` or `failed` with
// its event row and the event's webhook deliveries, in one statement. A post is published at most once per publication_seq:
// a retried job resumes the same attempt with the same idempotency key.
import { z } from 'zod';
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
import type { Pool } from '../db/pool.ts';
import { isId } from '../ids.ts';
import type { Kind, Platform } from '../platforms/capabilities.ts';
import { postEventBody } from './events.ts';

/** The publish_post job payload, written by ./publicationJobs.ts. */
export const PublishJob = z.object({
  post_id: z.string().refine(isId),
  scheduled_for: z.string(),
});
export type PublishJob = z.infer<typeof PublishJob>;

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
select p.id, (select enqueue_event_deliveries(e.id, e.account_id, e.type) from e) as deliveries
from p`;

type Outcome =
  | { status: 'published'; publication: Publication }
  | { status: 'failed'; error: string };

async function finish(pool: Pool, claim: Claim, outcome: Outcome): Promise<boolean> {
  const snapshot = {
    id: claim.id,
    platform: claim.platform,
    status: outcome.status,
    external_post_id: outcome.status === 'published' ? outcome.publication.externalPostId : null,
    permalink_url: outcome.status === 'published' ? outcome.publication.permalinkUrl : null,
    error: outcome.status === 'failed' ? outcome.error : null,
    body: claim.body,
  };
  const { rowCount } = await pool.query({
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
  return rowCount === 1;
}

export type PublicationResult = 'published' | 'failed' | 'skipped';

/** Idempotency key of one publication attempt: the same across retries of that attempt. */
export const idempotencyKey = (claim: Pick<Claim, 'uuid' | 'publication_seq'>) =>
  `${claim.uuid}.${claim.publication_seq}`;

/** The longest Retry-After honoured; a platform asking for more is retried after this. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * Moves the failing job's next run to at least `ms` from now. Graphile Worker's failure
 * handling adds its backoff to `greatest(now(), run_at)`, so the retry comes after both.
 */
async function deferRetry(pool: Pool, jobId: string, ms: number) {
  await pool.query(
    `update graphile_worker._private_jobs set run_at = now() + $2 * interval '1 millisecond'
     where id = $1`,
    [jobId, Math.min(ms, MAX_RETRY_AFTER_MS)],
  );
}

/** How long a connector may take for one publication. */
const PUBLISH_TIMEOUT_MS = 60_000;

/**
 * Runs one publication job. Throws (so the job is retried, the post staying `publishing`)
 * only for a retryable failure with attempts left.
 */
export type PublicationDeps = {
  connectors: Connectors;
  /** Opens connected accounts' credentials; without it, accounts with credentials fail. */
  credentialsKey?: CredentialsKey;
};

export async function publishScheduledPost(
  pool: Pool,
  { connectors, credentialsKey }: PublicationDeps,
  job: PublishJob,
  attempt: { number: number; max: number; signal: AbortSignal; jobId?: string },
): Promise<PublicationResult> {
  const { rows } = await pool.query<Claim>({
    name: 'claim_publication',
    text: CLAIM,
    values: [job.post_id, job.scheduled_for],
  });
  const claim = rows[0];
  if (!claim) return 'skipped';
  const fail = async (error: string) => {
    await finish(pool, claim, { status: 'failed', error });
    return 'failed' as const;
  };

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
      if (err instanceof PublicationError && err.retryAfterMs && attempt.jobId)
        await deferRetry(pool, attempt.jobId, err.retryAfterMs);
      throw err;
    }
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof PublicationError && err.reconnect)
      await markNeedsReconnect(pool, account.id, message);
    else await recordAccountError(pool, account.id, message);
    return fail(message);
  }
  await finish(pool, claim, { status: 'published', publication });
  return 'published';
}
