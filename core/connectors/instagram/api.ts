// Instagram's Graph API (graph.instagram.com, Instagram Login) as the connector calls it: a
// container's status as Instagram writes it (`status_code`, and for ERROR the subcode in
// `status`), the publishing limit (`content_publishing_limit`), the account's own media read
// back to find a container an earlier try published, permalinks and insights.
// Docs: developers.facebook.com/docs/instagram-platform: reference/ig-container,
// instagram-graph-api/reference/ig-user/content_publishing_limit, …/ig-user/media,
// reference/instagram-media, reference/instagram-media/insights, error-codes.
import { z } from 'zod';
import { PLATFORM_NAMES } from '../../kernel/platformNames.ts';
import type { ContainerStatus } from '../meta/container.ts';
import { StatusValue } from '../meta/container.ts';
import { GRAPH_VERSION, type GraphCall, GraphId, getDocumented } from '../meta/graph.ts';
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

export const INSTAGRAM = PLATFORM_NAMES.instagram;
/** The Graph API version every path is written against (Instagram's `/me` uses it too). */
export const VERSION = `/${GRAPH_VERSION}`;

/**
 * What Instagram's error codes page says of the subcodes a container's ERROR carries, for a
 * person reading the failure (the status itself gives only the number).
 */
const SUBCODES: Record<number, string> = {
  2207003: 'downloading the media took too long',
  2207004: 'the image is too large',
  2207005: 'the media format is not supported',
  2207009: 'the image aspect ratio is not supported',
  2207010: 'the caption is too long',
  2207026: 'the video format is not supported',
  2207052: 'the media could not be downloaded',
  2207053: 'the video could not be uploaded',
  2207082: 'the media could not be processed',
  2207085: 'the video could not be processed: check its format, duration and resolution',
};

/** The subcodes that mean Instagram could not fetch the media from its address. */
const FETCH_FAILED = new Set([2207003, 2207052]);

const Status = z.object({
  status_code: StatusValue,
  status: z.string().max(2000).optional().catch(undefined),
});

const subcodeIn = (status: string | undefined) => {
  const code = status ? /\b(22\d{5})\b/.exec(status)?.[1] : undefined;
  return code ? Number(code) : undefined;
};

/** GET /{container}?fields=status_code,status: ERROR's reason is `status`, with its meaning. */
export function readStatus(
  json: unknown,
): { status: ContainerStatus; reason: string | undefined } | undefined {
  const parsed = Status.safeParse(json);
  if (!parsed.success) return undefined;
  const { status_code, status } = parsed.data;
  const meaning = SUBCODES[subcodeIn(status) ?? 0];
  return { status: status_code, reason: meaning ? `${status} (${meaning})` : status };
}

/** Whether an ERROR's reason says Instagram could not download the media. */
export const fetchFailed = (reason: string) =>
  FETCH_FAILED.has(subcodeIn(reason) ?? 0) || /download/i.test(reason);

const Quota = z.object({
  quota_usage: z.number().int().min(0),
  config: z
    .object({
      quota_total: z.number().int().min(1),
      // A day, as documented; more than a week is not a window this service waits out.
      quota_duration: z
        .number()
        .int()
        .min(1)
        .max(7 * 86_400),
    })
    .optional()
    .catch(undefined),
});
/** The reference answers `{data: [quota]}`; an answer of the quota itself is read too. */
const QuotaAnswer = quotaAnswer(Quota);

/** How much of the account's 24-hour publishing limit is spent; total unknown when not said. */
export async function publishingLimit(call: GraphCall, userId: string) {
  const q = await getDocumented(
    call,
    INSTAGRAM,
    `${VERSION}/${userId}/content_publishing_limit`,
    { fields: 'quota_usage,config' },
    QuotaAnswer,
  );
  return {
    used: q.quota_usage,
    total: q.config?.quota_total,
    seconds: q.config?.quota_duration ?? 86_400,
  };
}

const OwnMedia = z.object({
  id: GraphId,
  caption: z.string().max(100_000).optional(),
  timestamp: z.string().max(100).optional(),
});
const OwnMediaList = z.object({ data: itemsOf(OwnMedia) });

/**
 * The account's latest media (newest first), with their captions and times: its feed posts
 * (`media`), or its live stories (`stories`), which the feed's list leaves out.
 */
export async function ownMedia(
  call: GraphCall,
  userId: string,
  limit: number,
  edge: 'media' | 'stories' = 'media',
) {
  const answer = await getDocumented(
    call,
    INSTAGRAM,
    `${VERSION}/${userId}/${edge}`,
    { fields: 'id,caption,timestamp', limit: String(Math.min(100, Math.max(1, limit))) },
    OwnMediaList,
  );
  return answer.data;
}

/**
 * The id of the account's media with `caption` published since `sinceMs` (the time remembered
 * just before the publish call), among its feed posts or its stories (which have no caption),
 * as pickPublished tells it: undefined when its latest have none, a final failure when several
 * cannot be told apart (two stories, or the same caption twice).
 */
export async function findOwnMedia(
  call: GraphCall,
  userId: string,
  wanted: { caption: string; story: boolean },
  sinceMs: number,
): Promise<string | undefined> {
  const media = await ownMedia(call, userId, 50, wanted.story ? 'stories' : 'media');
  return pickPublished(
    media.map((m) => ({ id: m.id, text: m.caption, at: graphTime(m.timestamp) })),
    {
      platform: INSTAGRAM,
      text: wanted.story ? '' : wanted.caption,
      since: sinceMs,
      marginMs: CLOCK_MARGIN_MS,
      comparable: echoedText,
    },
  )?.id;
}

/**
 * When the oldest of the account's media in the last `seconds` leaves the moving window (a
 * full limit has room again then), or undefined when its latest media say nothing.
 */
export async function limitFreesAt(
  call: GraphCall,
  userId: string,
  seconds: number,
  total: number,
): Promise<Date | undefined> {
  const now = Date.now();
  const times = (await ownMedia(call, userId, Math.min(100, total)))
    .map((m) => graphTime(m.timestamp))
    .filter((t) => Number.isFinite(t) && t > now - seconds * 1000 && t <= now);
  return times.length ? new Date(Math.min(...times) + seconds * 1000) : undefined;
}

/** The published media's public address (`permalink`), or null when Instagram gives none. */
export const permalinkOfMedia = (call: GraphCall, mediaId: string) =>
  permalinkOf(call, `${VERSION}/${mediaId}`, 'permalink', addressOn('instagram.com'));

/**
 * GET /{media}/insights (instagram_business_manage_insights): each metric's lifetime value.
 * `impressions`, `plays` and `video_views` are gone since April 2025; `views` replaces them.
 */
export const insightsOfMedia = (call: GraphCall, mediaId: string) =>
  insightsOf(call, INSTAGRAM, `${VERSION}/${mediaId}/insights`, 'views,likes,comments,shares');

const Counts = z.object({
  like_count: z.number().optional().catch(undefined),
  comments_count: z.number().optional().catch(undefined),
});

/** GET /{media}?fields=like_count,comments_count: the counts a basic token may read. */
export async function countsOf(call: GraphCall, mediaId: string) {
  return getDocumented(
    call,
    INSTAGRAM,
    `${VERSION}/${mediaId}`,
    { fields: 'like_count,comments_count' },
    Counts,
  );
}
