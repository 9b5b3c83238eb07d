// What is Facebook's alone in calling the Graph API as a Page (the calls themselves and Meta's
// errors are ../meta/graph.ts): its hosts under one Graph version, its ids, and the
// permalinks it gives.
// Docs: developers.facebook.com/docs/graph-api/reference/page/feed, …/reference/post.
import { z } from 'zod';
import { PLATFORM_NAMES } from '../../kernel/platformNames.ts';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import type { ConnectedAccountAccess } from '../connector.ts';
import { GRAPH_ID, GRAPH_VERSION, type GraphCall, graphClient } from '../meta/graph.ts';

export const FACEBOOK = PLATFORM_NAMES.facebook;

/** A Page's, photo's or video's id: a Graph id, named as Facebook's in a refusal. */
export const ObjectId = z.string().regex(GRAPH_ID, 'not a Facebook id');
/** A Page post's id as Graph gives it: `{page-id}_{post-id}`. */
export const PostId = z.string().regex(/^\d{1,40}_\d{1,40}$/, 'not a Facebook post id');

/**
 * Graph calls as the Page on FACEBOOK_API_URL (and FACEBOOK_VIDEO_URL for the video upload)
 * under GRAPH_VERSION; a refused Page token is refetched once by the connection layer.
 */
export function pageGraph(
  policy: OutboundPolicy,
  hosts: { apiUrl: string; videoUrl: string },
  account: ConnectedAccountAccess,
  timeoutMs: number,
): GraphCall {
  return graphClient({
    policy,
    platform: FACEBOOK,
    apiUrl: `${hosts.apiUrl}/${GRAPH_VERSION}`,
    videoUrl: `${hosts.videoUrl}/${GRAPH_VERSION}`,
    account,
    timeoutMs,
  });
}

/**
 * A permalink as Facebook gives it (`permalink_url`): a post's is a full address, a video's a
 * path on www.facebook.com. Anything but an https address on facebook.com is none.
 */
export function permalinkFrom(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2000) return null;
  const full = value.startsWith('/') ? `https://www.facebook.com${value}` : value;
  if (!URL.canParse(full)) return null;
  const url = new URL(full);
  const host = url.hostname.toLowerCase();
  return url.protocol === 'https:' && (host === 'facebook.com' || host.endsWith('.facebook.com'))
    ? url.toString()
    : null;
}
