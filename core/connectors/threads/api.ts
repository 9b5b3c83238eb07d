// Threads' Graph API (graph.threads.net, v1.0) as the connector calls it: the container's
// status as Threads writes it (`status`, `error_message`), the publishing quota
// (`threads_publishing_limit`), and the account's own posts and replies, read back to find a
// container an earlier try published. Docs: developers.facebook.com/docs/threads
// (troubleshooting, overview "Posts", threads-media "Retrieve a list of all a user's threads",
// reply-management "A user's replies").
import { z } from 'zod';
import { PLATFORM_NAMES } from '../../kernel/platformNames.ts';
import type { ContainerStatus } from '../meta/container.ts';
import { StatusValue } from '../meta/container.ts';
import { type GraphCall, GraphId, getDocumented } from '../meta/graph.ts';
import {
  addressOn,
  CLOCK_MARGIN_MS,
  echoedText,
  graphTime,
  insightsOf,
  permalinkOf,
  quotaAnswer,
} from '../meta/readings.ts';
import { itemsOf, pickPublished } from '../readings.ts';

export const THREADS = PLATFORM_NAMES.threads;
/** The version of Threads' Graph API every path is written against. */
export const VERSION = '/v1.0';

const Status = z.object({
  status: StatusValue,
  error_message: z.string().max(2000).optional().catch(undefined),
});

/** GET /{container}?fields=status,error_message. */
export function readStatus(
  json: unknown,
): { status: ContainerStatus; reason: string | undefined } | undefined {
  const parsed = Status.safeParse(json);
  return parsed.success
    ? { status: parsed.data.status, reason: parsed.data.error_message }
    : undefined;
}

/**
 * Threads' error messages for a container that failed because its media could not be
 * downloaded (FAILED_DOWNLOADING_VIDEO in the troubleshooting page's list, and its image twin).
 */
export const fetchFailed = (reason: string) => /DOWNLOAD/i.test(reason);

const Quota = z.object({
  quota_usage: z.number().int().min(0),
  config: z.object({
    quota_total: z.number().int().min(0),
    quota_duration: z.number().int().min(1),
  }),
  reply_quota_usage: z.number().int().min(0).optional(),
  reply_config: z
    .object({ quota_total: z.number().int().min(0), quota_duration: z.number().int().min(1) })
    .optional(),
});
/** The troubleshooting page answers `{data: [quota]}`; the overview shows the quota itself. */
const QuotaAnswer = quotaAnswer(Quota);

export type PublishingQuota = {
  posts: { used: number; total: number; seconds: number };
  replies: { used: number; total: number; seconds: number } | undefined;
};

/** GET /{user}/threads_publishing_limit: how much of the account's 24-hour quotas is spent. */
export async function publishingQuota(call: GraphCall, userId: string): Promise<PublishingQuota> {
  const q = await getDocumented(
    call,
    THREADS,
    `${VERSION}/${userId}/threads_publishing_limit`,
    { fields: 'quota_usage,config,reply_quota_usage,reply_config' },
    QuotaAnswer,
  );
  return {
    posts: { used: q.quota_usage, total: q.config.quota_total, seconds: q.config.quota_duration },
    replies:
      q.reply_config && q.reply_quota_usage !== undefined
        ? {
            used: q.reply_quota_usage,
            total: q.reply_config.quota_total,
            seconds: q.reply_config.quota_duration,
          }
        : undefined,
  };
}

const OwnPost = z.object({
  id: GraphId,
  text: z.string().max(100_000).optional(),
  timestamp: z.string().max(100).optional(),
  permalink: z.string().max(2000).optional().catch(undefined),
  media_type: z.string().max(100).optional(),
  replied_to: z.object({ id: GraphId }).optional().catch(undefined),
});
const OwnPosts = z.object({ data: itemsOf(OwnPost) });

/**
 * The id of the account's post (or, with `parent`, its reply to `parent`) with `text`, made
 * since `sinceMs` (as pickPublished tells it); undefined when the account's recent posts have
 * none. Meta dates are read with `since` (Unix seconds), newest first.
 */
export async function findOwnPost(
  call: GraphCall,
  userId: string,
  part: { text: string; parent: string | undefined; sinceMs: number },
): Promise<string | undefined> {
  const edge = part.parent ? 'replies' : 'threads';
  const posts = await getDocumented(
    call,
    THREADS,
    `${VERSION}/${userId}/${edge}`,
    {
      fields: 'id,text,timestamp,replied_to',
      since: String(Math.floor((part.sinceMs - CLOCK_MARGIN_MS) / 1000)),
      limit: '100',
    },
    OwnPosts,
  );
  const candidates = posts.data
    .filter(
      (p) => !part.parent || p.replied_to?.id === undefined || p.replied_to.id === part.parent,
    )
    .map((p) => ({ id: p.id, text: p.text, at: graphTime(p.timestamp) }));
  return pickPublished(candidates, {
    platform: THREADS,
    text: part.text,
    since: part.sinceMs,
    marginMs: CLOCK_MARGIN_MS,
    comparable: echoedText,
  })?.id;
}

/** GET /{user}/threads: the account's recent posts with their addresses, newest first. */
export async function ownPosts(call: GraphCall, userId: string, limit: number) {
  const answer = await getDocumented(
    call,
    THREADS,
    `${VERSION}/${userId}/threads`,
    {
      fields: 'id,text,timestamp,permalink,media_type',
      limit: String(Math.min(100, Math.max(1, limit))),
    },
    OwnPosts,
  );
  return answer.data;
}

/** The published media's public address (`permalink`), or null when Threads gives none. */
export const permalinkOfMedia = (call: GraphCall, mediaId: string) =>
  permalinkOf(call, `${VERSION}/${mediaId}`, 'permalink', addressOn('threads.com', 'threads.net'));

/** GET /{media}/insights: each metric's lifetime value by name. */
export const insightsOfMedia = (call: GraphCall, mediaId: string) =>
  insightsOf(
    call,
    THREADS,
    `${VERSION}/${mediaId}/insights`,
    'views,likes,replies,reposts,quotes,shares',
  );
