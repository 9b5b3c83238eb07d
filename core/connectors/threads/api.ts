// Threads' Graph API (graph.threads.net, v1.0) as the connector calls it: the container's
// status as Threads writes it (`status`, `error_message`), the publishing quota
// (`threads_publishing_limit`), and the account's own posts and replies, read back to find a
// container an earlier try published. Docs: developers.facebook.com/docs/threads
// (troubleshooting, overview "Posts", threads-media "Retrieve a list of all a user's threads",
// reply-management "A user's replies").
import { z } from 'zod';
import { documented } from '../http.ts';
import type { ContainerStatus } from '../meta/container.ts';
import { StatusValue } from '../meta/container.ts';
import { type GraphCall, GraphId } from '../meta/graph.ts';
import { itemsOf } from '../readings.ts';

export const THREADS = 'Threads';
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
const QuotaAnswer = z.union([z.object({ data: z.array(Quota).min(1) }), Quota]);

export type PublishingQuota = {
  posts: { used: number; total: number; seconds: number };
  replies: { used: number; total: number; seconds: number } | undefined;
};

/** GET /{user}/threads_publishing_limit: how much of the account's 24-hour quotas is spent. */
export async function publishingQuota(call: GraphCall, userId: string): Promise<PublishingQuota> {
  const path = `${VERSION}/${userId}/threads_publishing_limit`;
  const res = await call('GET', path, {
    fields: 'quota_usage,config,reply_quota_usage,reply_config',
  });
  const answer = documented(THREADS, `GET ${path}`, res, QuotaAnswer);
  const q = 'data' in answer ? answer.data[0]! : answer;
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

/** Text as Threads echoes it compared with what was sent (normalised, spaces collapsed). */
const comparable = (text: string | undefined) =>
  (text ?? '').normalize('NFC').replace(/\s+/g, ' ').trim();

/** How far before the remembered time the reading starts (clocks differ). */
const CLOCK_MARGIN_S = 5 * 60;

/**
 * The id of the account's post (or, with `parent`, its reply to `parent`) with `text`, made
 * since `sinceMs`; undefined when the account's recent posts have none. Meta dates are read
 * with `since` (Unix seconds), newest first.
 */
export async function findOwnPost(
  call: GraphCall,
  userId: string,
  part: { text: string; parent: string | undefined; sinceMs: number },
): Promise<string | undefined> {
  const edge = part.parent ? 'replies' : 'threads';
  const path = `${VERSION}/${userId}/${edge}`;
  const res = await call('GET', path, {
    fields: 'id,text,timestamp,replied_to',
    since: String(Math.floor(part.sinceMs / 1000) - CLOCK_MARGIN_S),
    limit: '100',
  });
  const posts = documented(THREADS, `GET ${path}`, res, OwnPosts).data;
  const want = comparable(part.text);
  // Oldest first: a post made since the publish call is this one, before any made after it.
  const found = [...posts]
    .reverse()
    .find(
      (p) =>
        comparable(p.text) === want &&
        (!part.parent || p.replied_to?.id === undefined || p.replied_to.id === part.parent),
    );
  return found?.id;
}

/** GET /{user}/threads: the account's recent posts with their addresses, newest first. */
export async function ownPosts(call: GraphCall, userId: string, limit: number) {
  const path = `${VERSION}/${userId}/threads`;
  const res = await call('GET', path, {
    fields: 'id,text,timestamp,permalink,media_type',
    limit: String(Math.min(100, Math.max(1, limit))),
  });
  return documented(THREADS, `GET ${path}`, res, OwnPosts).data;
}

const Permalink = z.object({ permalink: z.url({ protocol: /^https$/ }).max(2000) });

/** The published media's public address (`permalink`), or null when Threads gives none. */
export async function permalinkOf(call: GraphCall, mediaId: string): Promise<string | null> {
  try {
    const res = await call('GET', `${VERSION}/${mediaId}`, { fields: 'permalink' });
    const parsed = Permalink.safeParse(res.json);
    return parsed.success ? parsed.data.permalink : null;
  } catch {
    // The post is published: an address we cannot read is no reason to say otherwise.
    return null;
  }
}

const Metric = z.object({
  name: z.string().max(100),
  values: z
    .array(z.object({ value: z.number() }))
    .max(10)
    .optional(),
  total_value: z.object({ value: z.number() }).optional(),
});
const Insights = z.object({ data: itemsOf(Metric) });

/** GET /{media}/insights: each metric's lifetime value by name. */
export async function insightsOf(call: GraphCall, mediaId: string): Promise<Map<string, number>> {
  const path = `${VERSION}/${mediaId}/insights`;
  const res = await call('GET', path, { metric: 'views,likes,replies,reposts,quotes,shares' });
  const values = new Map<string, number>();
  for (const m of documented(THREADS, `GET ${path}`, res, Insights).data) {
    const value = m.total_value?.value ?? m.values?.[0]?.value;
    if (value !== undefined) values.set(m.name, value);
  }
  return values;
}
