// Finding a post the Page may already have: Facebook takes no idempotency key, so before
// posting again after a crash or a timeout, and when Facebook refuses a post as a duplicate
// (506), the Page's own posts (GET /{page-id}/posts, newest first) created since the attempt
// was about to post are read, and the one with the same message is taken as this
// publication's (pickPublished: several that cannot be told apart are a final failure).
// What is matched: the post id is the Page's (`{page-id}_…`), its `created_time` is no earlier
// than the remembered time less a margin for clocks, and its `message`, compared without
// links and with whitespace folded (a photo's caption is its post's message). A video published
// with an upload's handle is looked for the same way among the Page's videos (its description).
import { z } from 'zod';
import { type GraphCall, getDocumented } from '../meta/graph.ts';
import { CLOCK_MARGIN_MS, graphTime } from '../meta/readings.ts';
import { itemsOf, pickPublished } from '../readings.ts';
import { FACEBOOK, ObjectId, PostId } from './api.ts';

const PagePost = z.object({
  id: PostId,
  message: z.string().max(100_000).optional().catch(undefined),
  created_time: z.string().max(40),
  permalink_url: z.string().max(2000).optional().catch(undefined),
});
const Posts = z.object({ data: itemsOf(PagePost) });

/** Message as compared: links left out (Facebook may show them as an attachment), NFC, spaces folded. */
export const comparable = (text: string) =>
  text
    .normalize('NFC')
    .replace(/https?:\/\/\S+/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The Page's post with `text` created since `since` (ms), with its permalink as Facebook gave
 * it; undefined when its recent posts have none, a final failure when several match.
 */
export async function findPosted(
  call: GraphCall,
  pageId: string,
  post: { text: string; since: number },
): Promise<{ id: string; permalink: string | undefined } | undefined> {
  const from = post.since - CLOCK_MARGIN_MS;
  const page = await getDocumented(
    call,
    FACEBOOK,
    `/${pageId}/posts`,
    {
      fields: 'id,message,created_time,permalink_url',
      since: String(Math.floor(from / 1000)),
      limit: '100',
    },
    Posts,
  );
  const found = pickPublished(
    page.data
      .filter((p) => p.id.startsWith(`${pageId}_`))
      .map((p) => ({
        id: p.id,
        text: p.message,
        at: graphTime(p.created_time),
        permalink: p.permalink_url,
      })),
    {
      platform: FACEBOOK,
      text: post.text,
      since: post.since,
      marginMs: CLOCK_MARGIN_MS,
      comparable,
    },
  );
  return found && { id: found.id, permalink: found.permalink };
}

const PageVideo = z.object({
  id: ObjectId,
  description: z.string().max(100_000).optional().catch(undefined),
  created_time: z.string().max(40),
  permalink_url: z.string().max(2000).optional().catch(undefined),
});
const Videos = z.object({ data: itemsOf(PageVideo) });

/**
 * The Page's video with `text` as its description created since `since` (ms), from its
 * uploaded videos (GET /{page-id}/videos), by the one read-back rule (pickPublished);
 * undefined when none is.
 */
export async function findVideo(
  call: GraphCall,
  pageId: string,
  video: { text: string; since: number },
): Promise<{ id: string; permalink: string | undefined } | undefined> {
  const page = await getDocumented(
    call,
    FACEBOOK,
    `/${pageId}/videos`,
    { type: 'uploaded', fields: 'id,description,created_time,permalink_url', limit: '100' },
    Videos,
  );
  const found = pickPublished(
    page.data.map((v) => ({
      id: v.id,
      text: v.description,
      at: graphTime(v.created_time),
      permalink: v.permalink_url,
    })),
    {
      platform: FACEBOOK,
      text: video.text,
      since: video.since,
      marginMs: CLOCK_MARGIN_MS,
      comparable,
    },
  );
  return found && { id: found.id, permalink: found.permalink };
}
