// Every Graphile Worker task of the service, in one place: its name, the zod schema of its
// payload, and the helpers that enqueue it. Jobs are added only through Graphile Worker's
// public SQL API (`add_job`, `remove_job`), on the caller's connection, so a row change and
// the jobs it causes commit together; nothing here touches the worker's private tables.
// workers/ holds one file per task and parses each payload with the schema below.
import { z } from 'zod';
import { DRAWING_FORMATS, MAX_SCALE, MIN_SCALE } from '../../render/drawingSize.ts';
import type { Queryable } from '../db/pool.ts';
import { isId } from '../kernel/ids.ts';
import { PLATFORMS } from '../kernel/platforms.ts';
import type { WorkerPool } from '../workerPools.ts';
import { type JobKind, MAX_PREVIEW_TIMES } from './schema.ts';

/** Task names, as Graphile Worker knows them and as job keys begin. */
export const TASK = {
  publishPost: 'publish_post',
  renderDesign: 'render_design',
  deliverWebhook: 'deliver_webhook',
  cleanupSessions: 'cleanup_sessions',
  cleanupUploads: 'cleanup_uploads',
  reconcile: 'reconcile',
  exportVideo: 'encode_video',
  previewVideo: 'preview_video',
  generateDrafts: 'generate_drafts',
  draftWeek: 'write_draft_week',
  importHistory: 'read_post_history',
  readGenome: 'read_brand_genome',
  renderDrawing: 'render_drawing',
  collectMetrics: 'collect_metrics',
  collectAccountMetrics: 'collect_account_metrics',
  collectTrends: 'collect_trends',
  collectAccountTrends: 'collect_account_trends',
  watchCompetitors: 'watch_competitors',
  watchCompetitor: 'watch_competitor',
  collectInbound: 'collect_inbound',
  collectAccountInbound: 'collect_account_inbound',
  sendReply: 'send_reply',
  draftReplies: 'write_reply_drafts',
  performEngagementAction: 'perform_engagement_action',
  runAgentTask: 'run_agent_task',
  pruneEngagement: 'prune_engagement',
  renewConnections: 'renew_connections',
} as const;
export type TaskName = (typeof TASK)[keyof typeof TASK];

/** The pool (task family) that runs each task (core/workerPools.ts). */
export const TASK_POOL: Record<TaskName, WorkerPool> = {
  [TASK.publishPost]: 'publish',
  [TASK.deliverWebhook]: 'publish',
  [TASK.cleanupSessions]: 'publish',
  [TASK.cleanupUploads]: 'publish',
  [TASK.renderDesign]: 'render',
  [TASK.reconcile]: 'publish',
  [TASK.exportVideo]: 'video',
  // Poster frames are small and a client waits for them: never behind a long export.
  [TASK.previewVideo]: 'render',
  [TASK.renderDrawing]: 'render',
  // Reading from the platforms waits on the network, like publication (READING_TASKS).
  [TASK.collectMetrics]: 'publish',
  [TASK.collectAccountMetrics]: 'publish',
  [TASK.collectTrends]: 'publish',
  [TASK.collectAccountTrends]: 'publish',
  [TASK.watchCompetitors]: 'publish',
  [TASK.watchCompetitor]: 'publish',
  [TASK.collectInbound]: 'publish',
  [TASK.collectAccountInbound]: 'publish',
  // A reply goes out like a publication: in the publish pool, beside deliveries.
  [TASK.sendReply]: 'publish',
  [TASK.performEngagementAction]: 'publish',
  [TASK.generateDrafts]: 'generate',
  [TASK.draftReplies]: 'generate',
  [TASK.runAgentTask]: 'generate',
  [TASK.pruneEngagement]: 'publish',
  // A platform call per connection, like a publication's refresh.
  [TASK.renewConnections]: 'publish',
  [TASK.draftWeek]: 'generate',
  [TASK.importHistory]: 'generate',
  [TASK.readGenome]: 'generate',
};

/**
 * The `publish` pool's reading jobs (metrics, trends, competitors' posts, one account or
 * profile each): a worker runs them on a runner of their own, with its own slots, so readings
 * of a slow platform can hold only each other up, never a publication or a delivery.
 */
export const READING_TASKS: ReadonlySet<TaskName> = new Set([
  TASK.collectAccountMetrics,
  TASK.collectAccountTrends,
  TASK.watchCompetitor,
  TASK.collectAccountInbound,
]);

/** When the periodic tasks run (Graphile Worker crontab: minute hour day month weekday). */
const SCHEDULES: Partial<Record<TaskName, string>> = {
  [TASK.cleanupSessions]: '0 * * * *',
  [TASK.cleanupUploads]: '30 * * * *',
  // Work left unfinished by a killed worker is failed with a reason within about a minute.
  [TASK.reconcile]: '* * * * *',
  // Fresh posts' engagement every 15 minutes (core/metrics/collect.ts).
  [TASK.collectMetrics]: '*/15 * * * *',
  // Trends hourly (core/trends/service.ts).
  [TASK.collectTrends]: '45 * * * *',
  // Competitors hourly (core/competitors/watch.ts).
  [TASK.watchCompetitors]: '30 * * * *',
  // Mentions and replies every 5 minutes (core/engagement/collect.ts).
  [TASK.collectInbound]: '*/5 * * * *',
  // Mentions, inbox actions and agent tasks past keeping, daily (core/engagement/prune.ts).
  [TASK.pruneEngagement]: '15 3 * * *',
  // Idle connections' expiring tokens, every 6 hours (core/connections/renew.ts).
  [TASK.renewConnections]: '20 */6 * * *',
};

/** The crontab for the periodic tasks among `registered` (a task not run has no schedule). */
export const crontabFor = (registered: readonly string[]): string =>
  Object.entries(SCHEDULES)
    .filter(([task]) => registered.includes(task))
    .map(([task, when]) => `${when} ${task}`)
    .join('\n');

/** One job per subject (a post, a design, a delivery): adding it again replaces it. */
const jobKey = (task: TaskName, subjectId: string) => `${task}:${subjectId}`;

async function addJob(
  db: Queryable,
  task: TaskName,
  payload: unknown,
  opts: {
    jobKey: string;
    maxAttempts: number;
    runAt?: string;
    delayMs?: number;
    /** A Graphile Worker queue: its jobs run one at a time. */
    queueName?: string;
    /** Lower runs first among jobs due (Graphile Worker's default is 0). */
    priority?: number;
    /**
     * `preserve_run_at`: a job of the key already waiting keeps its time (a cron's fan-out
     * must not pull forward a job a platform's Retry-After pushed back). Default `replace`.
     */
    jobKeyMode?: 'replace' | 'preserve_run_at';
  },
): Promise<void> {
  await db.query(
    `select graphile_worker.add_job($1, $2::json,
       run_at := coalesce($3::timestamptz, now() + coalesce($4::int, 0) * interval '1 millisecond'),
       job_key := $5, max_attempts := $6, queue_name := $7, priority := $8,
       job_key_mode := $9)`,
    [
      task,
      JSON.stringify(payload),
      opts.runAt ?? null,
      opts.delayMs ?? null,
      opts.jobKey,
      opts.maxAttempts,
      opts.queueName ?? null,
      opts.priority ?? 0,
      opts.jobKeyMode ?? 'replace',
    ],
  );
}

/**
 * An account's lane in the `generate` pool: a Graphile Worker queue, whose jobs run one at a
 * time, so one account's burst holds at most two of the pool's slots and every other
 * account's work gets the rest. Generation, which a caller waits on, has a lane of its own,
 * so a long genome or import never pushes it past its timeout; the batch jobs share the other.
 */
const laneOf = (accountId: string, kind: JobKind) =>
  `generate:${accountId}:${INTERACTIVE.has(kind) ? 'interactive' : 'batch'}`;
/** The kinds of generation a caller waits on (repurpose, draft_replies). */
const INTERACTIVE: ReadonlySet<JobKind> = new Set(['generation', 'reply_drafts']);

// The publication of a scheduled post ------------------------------------------------

/** Attempts one publication gets for failures a connector calls retryable (network, 5xx, 429). */
export const PUBLISH_MAX_ATTEMPTS = 5;

/**
 * Rate-limit resets one publication waits for without spending attempts; past them, a rate
 * limit spends an attempt as any retryable failure does (a platform that keeps answering 429
 * must not hold a post forever).
 */
export const RATE_LIMIT_MAX_WAITS = 6;

export const PublishPostPayload = z.object({
  post_id: z.string().refine(isId),
  /** The post's time as stored: a job whose post moved finds nothing to claim. */
  scheduled_for: z.string(),
  /**
   * Attempts earlier jobs of this publication made: a job that honours a platform's
   * Retry-After hands its count on to the job it schedules, so the limit holds across them.
   */
  attempts_before: z.number().int().min(0).max(PUBLISH_MAX_ATTEMPTS).default(0),
  /** Times this publication waited for a platform's rate limit to reset (they spend no attempt). */
  rate_limit_waits: z.number().int().min(0).max(RATE_LIMIT_MAX_WAITS).optional(),
});
export type PublishPostPayload = z.infer<typeof PublishPostPayload>;

/** The job key of a post's publication: one job per post. */
export const publicationJobKey = (postId: string) => jobKey(TASK.publishPost, postId);

/**
 * Enqueues (or moves) the publication of a post that is `scheduled` at `scheduled_for`
 * (the very value stored, so that the job claims exactly that schedule).
 */
export async function enqueuePublication(
  db: Queryable,
  post: { post_id: string; scheduled_for: string },
): Promise<void> {
  const payload: PublishPostPayload = { ...post, attempts_before: 0 };
  await addJob(db, TASK.publishPost, payload, {
    jobKey: publicationJobKey(post.post_id),
    maxAttempts: PUBLISH_MAX_ATTEMPTS,
    runAt: post.scheduled_for,
  });
}

/**
 * Schedules the next attempt of a running publication `delayMs` from now, as a new job under
 * the post's key; the running job then completes. `attemptsMade` counts every attempt so far,
 * so the new job gets only the attempts left.
 */
export async function retryPublicationLater(
  db: Queryable,
  job: PublishPostPayload,
  attemptsMade: number,
  delayMs: number,
): Promise<void> {
  const payload: PublishPostPayload = { ...job, attempts_before: attemptsMade };
  await addJob(db, TASK.publishPost, payload, {
    jobKey: publicationJobKey(job.post_id),
    maxAttempts: PUBLISH_MAX_ATTEMPTS - attemptsMade,
    delayMs: Math.round(delayMs),
  });
}

/** When a rate limit resets: at a time the platform named, or after its Retry-After. */
export type RateLimitWait = { runAt: Date } | { delayMs: number };

/**
 * Schedules the next attempt of a publication that a platform's rate limit stopped, at its
 * reset, as a new job under the post's key; `attemptsMade` leaves out the attempt the limit
 * cut short, so waiting spends none. Counted in `rate_limit_waits`.
 */
export async function waitOutRateLimit(
  db: Queryable,
  job: PublishPostPayload,
  attemptsMade: number,
  wait: RateLimitWait,
): Promise<void> {
  const payload: PublishPostPayload = {
    ...job,
    attempts_before: attemptsMade,
    rate_limit_waits: (job.rate_limit_waits ?? 0) + 1,
  };
  await addJob(db, TASK.publishPost, payload, {
    jobKey: publicationJobKey(job.post_id),
    maxAttempts: PUBLISH_MAX_ATTEMPTS - attemptsMade,
    ...('runAt' in wait
      ? { runAt: wait.runAt.toISOString() }
      : { delayMs: Math.round(wait.delayMs) }),
  });
}

/** Removes a post's pending publication job (a running one finds the post changed). */
export async function cancelPublication(db: Queryable, postId: string): Promise<void> {
  await db.query('select graphile_worker.remove_job($1)', [publicationJobKey(postId)]);
}

// The rendering of a design -----------------------------------------------------------

/** Rendering is deterministic: a second try only helps after a crash. */
const RENDER_MAX_ATTEMPTS = 2;

export const RenderDesignPayload = z.object({
  design_id: z.string().refine(isId),
  layout_version: z.number().int(),
});
export type RenderDesignPayload = z.infer<typeof RenderDesignPayload>;

/** Queues the rendering of one layout version (job key: one pending render per design). */
export async function enqueueRender(db: Queryable, design: { id: string; layout_version: number }) {
  const payload: RenderDesignPayload = {
    design_id: design.id,
    layout_version: design.layout_version,
  };
  await addJob(db, TASK.renderDesign, payload, {
    jobKey: jobKey(TASK.renderDesign, design.id),
    maxAttempts: RENDER_MAX_ATTEMPTS,
  });
}

// One attempt of a webhook delivery ---------------------------------------------------

export const DeliverWebhookPayload = z.object({
  delivery_id: z.string().refine(isId),
  attempt: z.number().int().min(1),
});
export type DeliverWebhookPayload = z.infer<typeof DeliverWebhookPayload>;

/**
 * Runs one attempt's job may make. A run cut short before the receiver's answer was recorded
 * (its worker killed, the database gone) is the same attempt run again, not one of SPEC's
 * three: the liveness sweep releases a dead worker's job and it runs again at once, and a run
 * that threw (the database unreachable) runs again after Graphile Worker's backoff. A job out
 * of runs is never added again: the reconciler fails its delivery with a reason, and the
 * delivery's own count of runs bounds its sends across all its jobs
 * (core/webhooks/delivery.ts MAX_DELIVERY_RUNS).
 */
export const DELIVERY_JOB_RUNS = 10;

/** The job key of a delivery's next attempt: one job per delivery. */
export const deliveryJobKey = (deliveryId: string) => jobKey(TASK.deliverWebhook, deliveryId);

/**
 * Queues attempt `attempt` of each delivery, `delayMs` from now. Each attempt is a job of its
 * own (DELIVERY_JOB_RUNS runs at most, all the same attempt): the delivery schedules its next
 * attempt itself (core/webhooks/delivery.ts).
 */
export async function enqueueDeliveries(
  db: Queryable,
  deliveryIds: readonly string[],
  opts: { attempt: number; delayMs?: number } = { attempt: 1 },
): Promise<void> {
  if (!deliveryIds.length) return;
  await db.query(
    `select graphile_worker.add_job($1, json_build_object('delivery_id', id, 'attempt', $4::int),
       run_at := now() + $5::int * interval '1 millisecond', job_key := key, max_attempts := $6)
     from unnest($2::text[], $3::text[]) as d(id, key)`,
    [
      TASK.deliverWebhook,
      deliveryIds,
      deliveryIds.map(deliveryJobKey),
      opts.attempt,
      Math.round(opts.delayMs ?? 0),
      DELIVERY_JOB_RUNS,
    ],
  );
}

/** Removes a delivery's job (one out of runs, whose delivery was failed instead). */
export async function removeDeliveryJob(db: Queryable, deliveryId: string): Promise<void> {
  await db.query('select graphile_worker.remove_job($1)', [deliveryJobKey(deliveryId)]);
}

// Jobs a client polls (core/jobs/service.ts) ----------------------------------------------

/** The task that runs each kind of job; the reconciler reads a job's worker job by it. */
export const JOB_TASK: Record<JobKind, TaskName> = {
  video_export: TASK.exportVideo,
  video_preview: TASK.previewVideo,
  generation: TASK.generateDrafts,
  draft_week: TASK.draftWeek,
  history_import: TASK.importHistory,
  genome: TASK.readGenome,
  drawing_export: TASK.renderDrawing,
  drawing_save: TASK.renderDrawing,
  reply: TASK.sendReply,
  reply_drafts: TASK.draftReplies,
  engagement_action: TASK.performEngagementAction,
  agent_task: TASK.runAgentTask,
};

/** The worker job of a client's job: keyed by the job's id, so it can never run twice. */
export const workJobKey = (kind: JobKind, jobId: string) => jobKey(JOB_TASK[kind], jobId);

/** An export is deterministic: more tries only help after a crash or a killed worker. */
const EXPORT_MAX_ATTEMPTS = 3;

export const ExportVideoPayload = z.object({
  job_id: z.string().refine(isId),
  design_id: z.string().refine(isId),
  layout_version: z.number().int().min(1),
});
export type ExportVideoPayload = z.infer<typeof ExportVideoPayload>;

export async function enqueueVideoExport(db: Queryable, payload: ExportVideoPayload) {
  await addJob(db, TASK.exportVideo, ExportVideoPayload.parse(payload), {
    jobKey: workJobKey('video_export', payload.job_id),
    maxAttempts: EXPORT_MAX_ATTEMPTS,
  });
}

export { MAX_PREVIEW_TIMES };

export const PreviewVideoPayload = ExportVideoPayload.extend({
  times: z.array(z.number().min(0)).min(1).max(MAX_PREVIEW_TIMES),
});
export type PreviewVideoPayload = z.infer<typeof PreviewVideoPayload>;

export async function enqueueVideoPreview(db: Queryable, payload: PreviewVideoPayload) {
  await addJob(db, TASK.previewVideo, PreviewVideoPayload.parse(payload), {
    jobKey: workJobKey('video_preview', payload.job_id),
    maxAttempts: EXPORT_MAX_ATTEMPTS,
  });
}

// Drawings (core/drawings/renderJob.ts) ------------------------------------------------------

export const RenderDrawingPayload = z.object({
  job_id: z.string().refine(isId),
  account_id: z.string().refine(isId),
  drawing_id: z.string().refine(isId),
  /** The version asked for: a drawing changed since is not drawn. */
  version: z.number().int().min(1),
  format: z.enum(DRAWING_FORMATS),
  scale: z.number().min(MIN_SCALE).max(MAX_SCALE),
  transparent: z.boolean(),
  /** `export`: a file kept an hour; `library`: an image asset. */
  target: z.enum(['export', 'library']),
});
export type RenderDrawingPayload = z.infer<typeof RenderDrawingPayload>;

/** The job kind of each target: exports and saves are kept, and bounded, apart. */
export const DRAWING_JOB_KIND = { export: 'drawing_export', library: 'drawing_save' } as const;

/**
 * Queues a drawing render behind the account's own: `ahead` (its drawings of the kind queued
 * or running already) is the job's priority, so another account's first drawing is taken
 * before this account's second. A burst of heavy drawings delays its own account, not all.
 */
export async function enqueueDrawingRender(
  db: Queryable,
  payload: RenderDrawingPayload,
  ahead: number,
) {
  const kind = DRAWING_JOB_KIND[payload.target];
  await addJob(db, TASK.renderDrawing, RenderDrawingPayload.parse(payload), {
    jobKey: workJobKey(kind, payload.job_id),
    maxAttempts: EXPORT_MAX_ATTEMPTS,
    priority: ahead,
  });
}

// Metrics (core/metrics/) -------------------------------------------------------------

/** A platform's Retry-After as a job's delay: at least 30 s (a 0 must not loop), at most an hour. */
const retryDelay = (ms: number | undefined) =>
  ms === undefined ? undefined : Math.min(3_600_000, Math.max(30_000, ms));

/**
 * When a reading job runs: after a Retry-After (`delayMs`), replacing the waiting job; from a
 * cron (none), now, unless a job of the key is already waiting for its later time.
 */
const readingTime = (delayMs: number | undefined) =>
  delayMs === undefined
    ? { jobKeyMode: 'preserve_run_at' as const }
    : { delayMs: retryDelay(delayMs), jobKeyMode: 'replace' as const };

/** What a job of one connected account carries (metrics, trends). */
export const ConnectedAccountPayload = z.object({
  connected_account_id: z.string().refine(isId),
});
export type ConnectedAccountPayload = z.infer<typeof ConnectedAccountPayload>;

/**
 * Queues a reading of one connected account (`delayMs`: after a platform's Retry-After). One
 * job a key, in a queue of its own (`lane`): an account is never read twice at once, and a
 * slow platform holds one slot of the pool, not all.
 */
async function enqueueAccountReading(
  db: Queryable,
  task: TaskName,
  lane: string,
  payload: ConnectedAccountPayload,
  delayMs: number | undefined,
) {
  await addJob(db, task, ConnectedAccountPayload.parse(payload), {
    jobKey: jobKey(task, payload.connected_account_id),
    maxAttempts: 3,
    queueName: `${lane}:${payload.connected_account_id}`,
    ...readingTime(delayMs),
  });
}

/** Queues the metrics collection of one connected account. */
export const enqueueAccountMetrics = (
  db: Queryable,
  payload: ConnectedAccountPayload,
  delayMs?: number,
) => enqueueAccountReading(db, TASK.collectAccountMetrics, 'metrics', payload, delayMs);

/** Queues the mentions collection of one connected account. */
export const enqueueAccountInbound = (
  db: Queryable,
  payload: ConnectedAccountPayload,
  delayMs?: number,
) => enqueueAccountReading(db, TASK.collectAccountInbound, 'inbound', payload, delayMs);

/** Queues the trends collection of one connected account. */
export const enqueueAccountTrends = (
  db: Queryable,
  payload: ConnectedAccountPayload,
  delayMs?: number,
) => enqueueAccountReading(db, TASK.collectAccountTrends, 'trends', payload, delayMs);

export const WatchCompetitorPayload = z.object({
  competitor_id: z.string().refine(isId),
});
export type WatchCompetitorPayload = z.infer<typeof WatchCompetitorPayload>;

/** Queues one profile's watch: keyed by the profile, queued by its brand (one at a time). */
export async function enqueueCompetitorWatch(
  db: Queryable,
  profile: { id: string; brand_id: string },
  delayMs?: number,
) {
  await addJob(
    db,
    TASK.watchCompetitor,
    WatchCompetitorPayload.parse({ competitor_id: profile.id }),
    {
      jobKey: jobKey(TASK.watchCompetitor, profile.id),
      maxAttempts: 3,
      queueName: `competitors:${profile.brand_id}`,
      ...readingTime(delayMs),
    },
  );
}

// Replies (core/engagement/) -------------------------------------------------------------

/** Who asked for something a job does, for its audit rows. */
const Actor = z.object({
  kind: z.enum(['api_key', 'session', 'oauth', 'system']),
  id: z.string().nullable(),
});

export const SendReplyPayload = z.object({
  job_id: z.string().refine(isId),
  account_id: z.string().refine(isId),
  suggestion_id: z.string().refine(isId),
  actor: Actor,
});
export type SendReplyPayload = z.infer<typeof SendReplyPayload>;

/**
 * Tries of one reply (or inbox action) for failures that may pass (network, 5xx, 429): the
 * job's backoff spreads 8 over about half an hour, past a platform's usual Retry-After.
 */
const REPLY_MAX_ATTEMPTS = 8;

/** Queues the sending of one reply (keyed by its job record: it never runs twice at once). */
export async function enqueueReplySend(db: Queryable, payload: SendReplyPayload) {
  await addJob(db, TASK.sendReply, SendReplyPayload.parse(payload), {
    jobKey: workJobKey('reply', payload.job_id),
    maxAttempts: REPLY_MAX_ATTEMPTS,
  });
}

export const EngagementActionPayload = z.object({
  job_id: z.string().refine(isId),
  account_id: z.string().refine(isId),
  action_id: z.string().refine(isId),
  actor: Actor,
});
export type EngagementActionPayload = z.infer<typeof EngagementActionPayload>;

/** Queues an approved inbox action (a like, a repost, a follow): one job an action. */
export async function enqueueEngagementAction(db: Queryable, payload: EngagementActionPayload) {
  await addJob(db, TASK.performEngagementAction, EngagementActionPayload.parse(payload), {
    jobKey: workJobKey('engagement_action', payload.job_id),
    maxAttempts: REPLY_MAX_ATTEMPTS,
  });
}

export const DraftRepliesPayload = z.object({
  job_id: z.string(),
  account_id: z.string(),
  suggestion_ids: z.array(z.string().refine(isId)).min(1).max(20),
  instruction: z.string().max(500).optional(),
});
export type DraftRepliesPayload = z.infer<typeof DraftRepliesPayload>;

export const enqueueReplyDrafts = (db: Queryable, payload: DraftRepliesPayload) =>
  addGenerateJob(db, 'reply_drafts', DraftRepliesPayload, payload);

// Agent tasks (core/agentTasks/) -------------------------------------------------------------

export const AgentTaskPayload = z.object({
  job_id: z.string(),
  account_id: z.string(),
  task_id: z.string().refine(isId),
  actor: Actor,
});
export type AgentTaskPayload = z.infer<typeof AgentTaskPayload>;

export const enqueueAgentTask = (db: Queryable, payload: AgentTaskPayload) =>
  addGenerateJob(db, 'agent_task', AgentTaskPayload, payload);

// Generation (core/generation/) ------------------------------------------------------------

/** What every job of the `generate` pool carries: its job record, account and brand. */
const BrandJob = z.object({ job_id: z.string(), account_id: z.string(), brand_id: z.string() });

export const GenerateDraftsPayload = BrandJob.extend({
  source_id: z.string(),
  /** The platforms asked for; the brand's own choice when omitted. */
  platforms: z.array(z.enum(PLATFORMS)).optional(),
  instruction: z.string().max(2000).optional(),
  /** Who asked, for the drafts' audit rows. */
  actor: Actor,
});
export type GenerateDraftsPayload = z.infer<typeof GenerateDraftsPayload>;

/** Generation fails fast: a source that cannot be read will not be read on a retry. */
const GENERATE_MAX_ATTEMPTS = 2;

/** Adds a job of the `generate` pool for its client's job record, in one of its account's lanes. */
async function addGenerateJob<P extends { job_id: string; account_id: string }>(
  db: Queryable,
  kind: JobKind,
  schema: z.ZodType<P>,
  payload: P,
) {
  await addJob(db, JOB_TASK[kind], schema.parse(payload), {
    jobKey: workJobKey(kind, payload.job_id),
    maxAttempts: GENERATE_MAX_ATTEMPTS,
    queueName: laneOf(payload.account_id, kind),
  });
}

export const enqueueGeneration = (db: Queryable, payload: GenerateDraftsPayload) =>
  addGenerateJob(db, 'generation', GenerateDraftsPayload, payload);

export const DraftWeekPayload = BrandJob.extend({
  start_date: z.string(),
  platforms: z.array(z.enum(PLATFORMS)).optional(),
  posts_per_day: z.number().int().min(1).max(3),
  /** What the drafts are about: themes, or sources (their ids). */
  themes: z.array(z.string()).optional(),
  source_ids: z.array(z.string()).optional(),
  actor: GenerateDraftsPayload.shape.actor,
});
export type DraftWeekPayload = z.infer<typeof DraftWeekPayload>;

export const enqueueDraftWeek = (db: Queryable, payload: DraftWeekPayload) =>
  addGenerateJob(db, 'draft_week', DraftWeekPayload, payload);

export const ImportHistoryPayload = BrandJob.extend({
  platforms: z.array(z.enum(PLATFORMS)).optional(),
});
export type ImportHistoryPayload = z.infer<typeof ImportHistoryPayload>;

export const enqueueHistoryImport = (db: Queryable, payload: ImportHistoryPayload) =>
  addGenerateJob(db, 'history_import', ImportHistoryPayload, payload);

export const GENOME_RUNS = ['visual', 'voice', 'all'] as const;

export const GenomePayload = BrandJob.extend({
  url: z.string(),
  run: z.enum(GENOME_RUNS),
});
export type GenomePayload = z.infer<typeof GenomePayload>;

export const enqueueGenome = (db: Queryable, payload: GenomePayload) =>
  addGenerateJob(db, 'genome', GenomePayload, payload);

// The hourly cleanups -----------------------------------------------------------------

/** What the crontab gives its jobs (`_cron`: when it was due); the cleanups ignore it. */
export const CronPayload = z.looseObject({});
