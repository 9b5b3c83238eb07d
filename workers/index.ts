// The worker role: one Graphile Worker runner per worker pool (task family) on the shared
// database pool, with one task per file. Graphile Worker only fetches jobs whose task its
// runner knows, so each pool's runner has its own slots: a long render or video export never
// holds the slots webhook deliveries and publications need.
import { EventEmitter } from 'node:events';
import {
  parseCrontab,
  run,
  type Task,
  type TaskList,
  type WorkerEvents,
  Logger as WorkerLogger,
} from 'graphile-worker';
import type { CredentialsKey, OAuthDeps } from '../core/connections/service.ts';
import type { Connectors, OAuthApp, PublicMedia } from '../core/connectors/schema.ts';
import { builtinConnectors, type ConnectorDeps, OAUTH_APPS } from '../core/connectors/service.ts';
import type { Pool } from '../core/db/pool.ts';
import { PROBE_TIMEOUT_MS } from '../core/db/probe.ts';
import { isDatabaseUnreachable } from '../core/db/unreachable.ts';
import { createPageImageCache, type PageImageCache } from '../core/designs/service.ts';
import type { ModelConfig } from '../core/generation/service.ts';
import { forgetWorkers, heartbeat, sweepDeadWorkers } from '../core/jobs/service.ts';
import { crontabFor, READING_TASKS, TASK, TASK_POOL, type TaskName } from '../core/jobs/tasks.ts';
import { FETCHES_MEDIA } from '../core/kernel/platforms.ts';
import type { Logger } from '../core/logger.ts';
import { type MediaTools, mediaTools, toolsDieWithProcess } from '../core/media/tools.ts';
import { sweepDeadWorkFolders } from '../core/media/workFolders.ts';
import type { OutboundPolicy } from '../core/outbound/guard.ts';
import { type OAuthPlatform, type PlatformApp, platformApps } from '../core/platformApps.ts';
import type { Storage } from '../core/storage/storage.ts';
import type { WorkerPool } from '../core/workerPools.ts';
import { createRenderPool, type RenderPool, type RenderPoolOptions } from '../render/renderPool.ts';
import { cleanupSessions } from './cleanupSessions.ts';
import { cleanupUploads } from './cleanupUploads.ts';
import { collectAccountInboundTask } from './collectAccountInbound.ts';
import { collectAccountMetricsTask } from './collectAccountMetrics.ts';
import { collectAccountTrendsTask } from './collectAccountTrends.ts';
import { collectInbound } from './collectInbound.ts';
import { collectMetrics } from './collectMetrics.ts';
import { collectTrends } from './collectTrends.ts';
import { deliverWebhookTask } from './deliverWebhook.ts';
import { draftRepliesTask } from './draftReplies.ts';
import { draftWeekTask } from './draftWeek.ts';
import { exportVideoTask } from './exportVideo.ts';
import { generateDraftsTask } from './generateDrafts.ts';
import { importHistoryTask } from './importHistory.ts';
import { type InFlight, inFlight } from './inFlight.ts';
import { performEngagementActionTask } from './performEngagementAction.ts';
import { previewVideoTask } from './previewVideo.ts';
import { pruneEngagementTask } from './pruneEngagement.ts';
import { publishPost } from './publishPost.ts';
import { readGenomeTask } from './readGenome.ts';
import { reconcile } from './reconcile.ts';
import { renderDesign } from './renderDesign.ts';
import { renderDrawingTask } from './renderDrawing.ts';
import { renewConnections } from './renewConnections.ts';
import { runAgentTaskTask } from './runAgentTask.ts';
import { sendReplyTask } from './sendReply.ts';
import { bounded, type StartedRunner, type Supervisor, superviseRunners } from './supervision.ts';
import { watchCompetitorTask } from './watchCompetitor.ts';
import { watchCompetitors } from './watchCompetitors.ts';

/** EXPORT_TIMEOUT_S's default: half an hour for one export's encoding. */
const DEFAULT_EXPORT_TIMEOUT_MS = 1_800_000;

export type WorkerDeps = {
  pool: Pool;
  /** Jobs each pool runs at once, unless `poolConcurrency` says otherwise for it. */
  concurrency: number;
  /** The pools (task families) to run; every one when omitted. */
  pools?: readonly WorkerPool[];
  poolConcurrency?: Partial<Record<WorkerPool, number>>;
  log: Logger;
  /** Platform connectors; the shipped ones when omitted (tests and benchmarks add theirs). */
  connectors?: Connectors;
  /** The Bluesky AppView the built-in connector reads counts from (BLUESKY_APPVIEW_URL). */
  blueskyAppView?: string;
  /** The OAuth platforms' addresses and app credentials; the documented defaults when omitted. */
  platformApps?: Record<OAuthPlatform, PlatformApp>;
  /**
   * The public media addresses the platforms that fetch media (Threads, Instagram)
   * are given (core/assets' publicMediaFor); without it they cannot publish media.
   */
  publicMedia?: PublicMedia;
  /** Each OAuth platform's app, for token refreshes; the shipped ones when omitted. */
  oauthApps?: Partial<Record<OAuthPlatform, OAuthApp>>;
  /** Where outbound requests (webhook deliveries) may go; public https only when omitted. */
  outbound?: OutboundPolicy;
  /** Asset storage, for cleaning expired uploads; omitted: that cron job is not registered. */
  storage?: Storage;
  /** Opens connected accounts' credentials. */
  credentialsKey?: CredentialsKey;
  /** Render threads and their time limit (RENDER_THREADS, RENDER_TIMEOUT_MS). */
  render?: RenderPoolOptions;
  /** ffmpeg and ffprobe with their time limit (FFMPEG_PATH, FFPROBE_PATH, FFMPEG_TIMEOUT_S). */
  tools?: MediaTools;
  /** The longest one video export's encoding may take (EXPORT_TIMEOUT_S). */
  exportTimeoutMs?: number;
  /** The model server generation writes with (LLM_*); the built-in generator when omitted. */
  llm?: ModelConfig;
  /** Heartbeat and sweep timing (tests shorten it). */
  liveness?: { heartbeatMs: number; staleAfterMs: number };
};

/** Every 5 s; a worker silent for 30 s is dead, and its jobs run again elsewhere. */
const LIVENESS = { heartbeatMs: 5_000, staleAfterMs: 30_000 };

export function taskList(deps: {
  pool: Pool;
  connectors: Connectors;
  credentialsKey?: CredentialsKey;
  /** What refreshing OAuth platforms' tokens takes (publications and readings). */
  oauth?: OAuthDeps;
  outbound: OutboundPolicy;
  storage?: Storage;
  renderer?: RenderPool;
  images?: PageImageCache;
  tools?: MediaTools;
  exportTimeoutMs?: number;
  llm?: ModelConfig;
}): TaskList {
  const { storage, renderer, images } = deps;
  const tools =
    deps.tools ??
    mediaTools({ ffmpegPath: undefined, ffprobePath: undefined, ffmpegTimeoutMs: 60_000 });
  const video = storage &&
    renderer &&
    images && {
      pool: deps.pool,
      storage,
      renderer,
      images,
      tools,
      encodeTimeoutMs: deps.exportTimeoutMs ?? DEFAULT_EXPORT_TIMEOUT_MS,
    };
  // What every task that reads from the platforms gets.
  const reading = {
    pool: deps.pool,
    connectors: deps.connectors,
    credentialsKey: deps.credentialsKey,
    oauth: deps.oauth,
  };
  return {
    [TASK.cleanupSessions]: cleanupSessions(deps.pool),
    [TASK.pruneEngagement]: pruneEngagementTask(deps.pool),
    [TASK.renewConnections]: renewConnections(reading),
    [TASK.reconcile]: reconcile({ pool: deps.pool, storage }),
    [TASK.publishPost]: publishPost(deps),
    [TASK.collectMetrics]: collectMetrics(reading),
    [TASK.collectAccountMetrics]: collectAccountMetricsTask(reading),
    [TASK.collectTrends]: collectTrends(reading),
    [TASK.collectAccountTrends]: collectAccountTrendsTask(reading),
    [TASK.watchCompetitors]: watchCompetitors(reading),
    [TASK.watchCompetitor]: watchCompetitorTask(reading),
    [TASK.collectInbound]: collectInbound(reading),
    [TASK.collectAccountInbound]: collectAccountInboundTask(reading),
    [TASK.sendReply]: sendReplyTask(reading),
    [TASK.performEngagementAction]: performEngagementActionTask(reading),
    [TASK.draftReplies]: draftRepliesTask({
      pool: deps.pool,
      outbound: deps.outbound,
      llm: deps.llm,
    }),
    [TASK.runAgentTask]: runAgentTaskTask({
      pool: deps.pool,
      outbound: deps.outbound,
      llm: deps.llm,
    }),
    [TASK.deliverWebhook]: deliverWebhookTask(deps),
    [TASK.generateDrafts]: generateDraftsTask({
      pool: deps.pool,
      outbound: deps.outbound,
      llm: deps.llm,
    }),
    [TASK.draftWeek]: draftWeekTask({ pool: deps.pool, outbound: deps.outbound }),
    [TASK.readGenome]: readGenomeTask({ pool: deps.pool, outbound: deps.outbound }),
    [TASK.importHistory]: importHistoryTask(reading),
    ...(storage ? { [TASK.cleanupUploads]: cleanupUploads({ pool: deps.pool, storage }) } : {}),
    ...(storage && renderer && images && video
      ? {
          [TASK.renderDesign]: renderDesign({ pool: deps.pool, storage, renderer, images, tools }),
          [TASK.exportVideo]: exportVideoTask(video),
          [TASK.previewVideo]: previewVideoTask(video),
          [TASK.renderDrawing]: renderDrawingTask({ pool: deps.pool, storage, renderer }),
        }
      : {}),
  };
}

// Scheduled jobs become due without a notification, so an idle worker notices them only
// when it polls: 250 ms bounds that delay (Graphile Worker's default is 2 s).
const POLL_INTERVAL_MS = 250;

/** Bridges Graphile Worker's logger to our JSON logger. */
function workerLogger(log: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const method = level === 'warning' ? 'warn' : level === 'debug' ? 'debug' : level;
    log[method]({ worker: scope, ...meta }, message);
  });
}

/**
 * Graphile Worker 0.18.0 cannot stop while its local queue holds jobs no worker has taken
 * yet (more jobs due than free workers): releasing the queue marks it released and then hands
 * those jobs back through its `background()`, which refuses work on a released queue with
 * nothing else in flight ("Cannot background something when the queue is already released").
 * The stop then turns forceful and logs six errors. Holding one background task from the
 * start of the shutdown until the queue reports itself released lets the hand-back run as
 * the library intends. `background` is private API: without it (another version) we do
 * nothing, and test/workers/shutdown.test.ts says whether that version needs this.
 */
function holdLocalQueueThroughRelease(events: WorkerEvents): void {
  type Queue = { mode: string; background?: (work: Promise<void>) => void };
  let queue: Queue | undefined;
  events.on('localQueue:init', ({ localQueue }) => {
    queue = localQueue as unknown as Queue;
  });
  events.on('pool:gracefulShutdown', () => {
    if (!queue || queue.mode === 'RELEASED' || typeof queue.background !== 'function') return;
    let done!: () => void;
    queue.background(new Promise<void>((resolve) => (done = resolve)));
    const onMode = ({ newMode }: { newMode: string }) => {
      if (newMode !== 'RELEASED') return;
      events.off('localQueue:setMode', onMode);
      done();
    };
    events.on('localQueue:setMode', onMode);
    // The release follows this event synchronously; should it ever not, never block the stop.
    setImmediate(done);
  });
}

/** A task whose runs are counted in `jobs` from start to end (their outcome not yet recorded). */
const track =
  (task: Task, jobs: InFlight): Task =>
  async (payload, helpers) => {
    jobs.started(helpers.job);
    try {
      return await task(payload, helpers);
    } finally {
      jobs.ended(helpers.job);
    }
  };

/** Every task of `tasks`, tracked. */
const tracked = (tasks: TaskList, jobs: InFlight): TaskList =>
  Object.fromEntries(
    Object.entries(tasks).flatMap(([name, task]): [string, Task][] =>
      task ? [[name, track(task, jobs)]] : [],
    ),
  );

/** The running worker: its pools' runners, stopped together, and the jobs they run now. */
export type WorkerRunner = {
  stop(reason?: string): Promise<void>;
  runningJobs(): string[];
  /** The pools that run here (a pool with no task yet has no runner). */
  pools: WorkerPool[];
};

/** What the shipped connectors are built with in this worker. */
export const connectorDepsOf = (deps: WorkerDeps, outbound: OutboundPolicy): ConnectorDeps => ({
  outbound,
  storage: deps.storage,
  blueskyAppView: deps.blueskyAppView,
  platformApps: deps.platformApps,
  publicMedia: deps.publicMedia,
});

export async function startWorker(deps: WorkerDeps): Promise<WorkerRunner> {
  // What runs now: what a stop waits for (named in the log when shutdown overruns its
  // deadline), and the locks a runner stopped for an outage keeps until its tasks end.
  const jobs = inFlight();
  const outbound = deps.outbound ?? { allowlist: [], allowHttp: false };
  const wanted = new Set(deps.pools ?? (Object.values(TASK_POOL) as WorkerPool[]));
  // Canvas pages and the stills of video exports are drawn in threads (their first render
  // starts them), off this event loop, from images this worker's own cache scaled.
  const renders = deps.storage && (wanted.has('render') || wanted.has('video'));
  const renderer = renders
    ? createRenderPool({
        onThreadError: (err) => deps.log.error({ err }, 'a render thread failed'),
        ...deps.render,
      })
    : undefined;
  const images = renders ? createPageImageCache() : undefined;
  const tasks = tracked(
    taskList({
      pool: deps.pool,
      connectors: deps.connectors ?? builtinConnectors(connectorDepsOf(deps, outbound)),
      credentialsKey: deps.credentialsKey,
      oauth: {
        platformApps: deps.platformApps ?? platformApps({}),
        outbound,
        apps: deps.oauthApps ?? OAUTH_APPS,
      },
      outbound,
      storage: deps.storage,
      renderer,
      images,
      tools: deps.tools,
      exportTimeoutMs: deps.exportTimeoutMs,
      llm: deps.llm,
    }),
    jobs,
  );
  // A runner per pool, and one more for the publish pool's readings (READING_TASKS), with
  // slots of their own: a slow platform's readings never hold a publication's slot.
  const byRunner = new Map<string, { pool: WorkerPool; tasks: TaskList }>();
  for (const [name, task] of Object.entries(tasks)) {
    const pool = TASK_POOL[name as TaskName];
    if (!wanted.has(pool)) continue;
    const runner = READING_TASKS.has(name as TaskName) ? `${pool}:reading` : pool;
    const group = byRunner.get(runner) ?? { pool, tasks: {} };
    byRunner.set(runner, { pool, tasks: { ...group.tasks, [name]: task } });
  }
  // Said once at start, where the operator looks: media posts to these platforms will fail.
  if (wanted.has('publish') && deps.publicMedia?.unreachable)
    deps.log.warn(
      { platforms: FETCHES_MEDIA },
      `media posts to the platforms that fetch media will fail unless the platform can reach this address: ${deps.publicMedia.unreachable}`,
    );
  // What killed processes left behind (their working folders), before this one makes any.
  const leftovers = await sweepDeadWorkFolders();
  if (leftovers.length)
    deps.log.info({ folders: leftovers }, 'removed the working folders of dead processes');
  if (renders && !toolsDieWithProcess())
    deps.log.warn(
      'setpriv --pdeathsig is not available: an ffmpeg run outlives a worker killed meanwhile (until it ends or times out)',
    );
  // One Graphile Worker runner per entry of byRunner, with the ids it locks jobs under.
  const startRunner = async (
    runner: string,
    pool: WorkerPool,
    poolTasks: TaskList,
  ): Promise<StartedRunner> => {
    const ids = new Set<string>();
    const events = new EventEmitter() as WorkerEvents;
    events.on('pool:create', ({ workerPool }) => ids.add(workerPool.id));
    events.on('worker:create', ({ worker }) => ids.add(worker.workerId));
    // Its pool could not record a job's outcome and is stopping: pause every pool at once.
    events.on('pool:fatalError', ({ error }) =>
      supervisor?.outage(`the ${runner} runner could not record a job's outcome`, error),
    );
    holdLocalQueueThroughRelease(events);
    const concurrency = deps.poolConcurrency?.[pool] ?? deps.concurrency;
    const started = await run({
      pgPool: deps.pool,
      concurrency,
      noHandleSignals: true,
      events,
      taskList: poolTasks,
      // Parsed here: a runner with no periodic task then reads no crontab file either.
      parsedCronItems: parseCrontab(crontabFor(Object.keys(poolTasks))),
      logger: workerLogger(deps.log.child({ pool, runner })),
      preset: {
        worker: {
          pollInterval: POLL_INTERVAL_MS,
          // Outcomes are recorded through Graphile Worker's batchers, whose failure (the
          // database gone) stops the runner for the supervisor to restart; recorded one by
          // one, a failure is an unhandled rejection that ends the process.
          completeJobBatchDelay: 0,
          failJobBatchDelay: 0,
          // Publication fetches due jobs in batches and completes them in batches: 1,000
          // posts due at once then cost a few queries per batch instead of two per job. A
          // job completed late after a crash is merely run again, and publication skips a
          // post already done. Long jobs (exports, renders, previews, readings) are fetched one per
          // free slot, so a process never holds work another process could be running.
          ...(runner === 'publish' ? { localQueue: { size: concurrency * 4 } } : {}),
        },
      },
    });
    return { runner: started, ids };
  };
  /**
   * Starts every runner, handing each to `started` as it starts (whoever called owns it from
   * then, should a later step fail); its ids beat at once, so a job it takes is the sweeper's
   * to release should the process die now.
   */
  const startRunners = async (started: (runner: StartedRunner) => void) => {
    for (const [runner, { pool, tasks: poolTasks }] of byRunner) {
      const entry = await startRunner(runner, pool, poolTasks);
      started(entry);
      await heartbeat(deps.pool, [...entry.ids]);
    }
  };
  const first: StartedRunner[] = [];
  try {
    await startRunners((r) => first.push(r));
  } catch (err) {
    await Promise.all(first.map((r) => r.runner.stop('another runner did not start')));
    throw err;
  }
  let supervisor: Supervisor | undefined;
  supervisor = superviseRunners({
    pool: deps.pool,
    log: deps.log,
    runners: first,
    start: startRunners,
    jobs,
  });
  const liveness = deps.liveness ?? LIVENESS;
  // Orphans (a worker killed before its first beat) are looked for once a stale period.
  const orphanEvery = Math.max(1, Math.round(liveness.staleAfterMs / liveness.heartbeatMs));
  let beats = 0;
  const beat = async () => {
    // Paused for an outage: the supervisor is trying the database already.
    if (supervisor?.paused()) return;
    try {
      await heartbeat(deps.pool, supervisor.liveIds());
      await supervisor.releaseStopped();
      const orphans = beats++ % orphanEvery === 0;
      const swept = await sweepDeadWorkers(deps.pool, liveness.staleAfterMs, { orphans });
      if (swept.length) deps.log.warn({ workers: swept }, 'released the jobs of dead workers');
    } catch (err) {
      if (isDatabaseUnreachable(err)) supervisor?.outage('the heartbeat could not be written', err);
      else deps.log.error({ err }, 'worker heartbeat failed');
    }
  };
  await beat();
  const timer = setInterval(beat, liveness.heartbeatMs);
  timer.unref();
  return {
    pools: [...new Set([...byRunner.values()].map((r) => r.pool))],
    runningJobs: () => jobs.labels(),
    stop: async (reason?: string) => {
      clearInterval(timer);
      // A clean stop leaves no id to sweep: those beating now, and any a late resume adds.
      const beating = supervisor.liveIds();
      await supervisor.stop(reason);
      await renderer?.close();
      await images?.close();
      const ids = [...new Set([...beating, ...supervisor.liveIds()])];
      await bounded(forgetWorkers(deps.pool, ids), PROBE_TIMEOUT_MS);
    },
  };
}
