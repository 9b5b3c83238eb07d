// Finding a post X may already have: X takes no idempotency key, so before posting a part again
// (after a crash or a timeout) and after X refuses one as a duplicate, the account's own recent
// posts are read (GET /2/users/{id}/tweets from when the part was about to be posted) and the
// post with the same text, answering the same parent, is taken as that part (pickPublished:
// several that cannot be told apart are a final failure).
import { z } from 'zod';
import { itemsOf, pickPublished } from '../readings.ts';
import { getDocumented, TweetId, X, type XCall } from './api.ts';

/** How far before the remembered time the reading starts (clocks differ). */
const CLOCK_MARGIN_MS = 5 * 60_000;
/** Pages read at most (100 posts each). */
const MAX_PAGES = 3;

/** A post read back is recorded as published: its id must be one X could have made. */
const TimelinePost = z.object({
  id: TweetId,
  text: z.string().max(100_000),
  created_at: z.string().max(40).optional().catch(undefined),
  referenced_tweets: z
    .array(z.object({ type: z.string(), id: z.string() }))
    .nullish()
    .catch(null),
});
const Timeline = z.object({
  data: itemsOf(TimelinePost).optional(),
  meta: z.object({ next_token: z.string().max(500).optional() }).optional(),
});

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>' };

/**
 * Text as X echoes it compared with what was sent: X escapes `& < >`, shortens links to t.co
 * and adds one for attached media, and normalises to NFC; so links are left out of both.
 */
export const comparable = (text: string) =>
  text
    .replace(/&(amp|lt|gt);/g, (m) => ENTITIES[m] ?? m)
    .normalize('NFC')
    .replace(/https?:\/\/\S+/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** X's start_time: ISO 8601 to the second. */
const xTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The id of the account's post with `text` that answers `parent` (none: not a reply), posted
 * since `since` (ms); undefined when the account's recent posts have none, a final failure
 * when several match.
 */
export async function findPosted(
  call: XCall,
  userId: string,
  part: { text: string; parent: string | undefined; since: number },
): Promise<string | undefined> {
  const candidates: { id: string; text: string; at: number }[] = [];
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({
      start_time: xTime(part.since - CLOCK_MARGIN_MS),
      max_results: '100',
      'tweet.fields': 'created_at,text,referenced_tweets',
      ...(token ? { pagination_token: token } : {}),
    });
    const path = `/2/users/${encodeURIComponent(userId)}/tweets?${query}`;
    const timeline = await getDocumented(call, path, Timeline);
    for (const p of timeline.data ?? []) {
      const repliedTo = p.referenced_tweets?.find((r) => r.type === 'replied_to')?.id;
      if (repliedTo === part.parent)
        candidates.push({ id: p.id, text: p.text, at: Date.parse(p.created_at ?? '') });
    }
    token = timeline.meta?.next_token;
    if (!token) break;
  }
  return pickPublished(candidates, {
    platform: X,
    text: part.text,
    since: part.since,
    marginMs: CLOCK_MARGIN_MS,
    comparable,
  })?.id;
}
