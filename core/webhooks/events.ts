// The post events of SPEC.md ("Events"): the exact JSON body webhooks deliver, serialized
// once when the event happens.

export const POST_EVENTS = ['post.published', 'post.failed'] as const;
export type PostEvent = (typeof POST_EVENTS)[number];

const PREVIEW_LIMIT = 140;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * The body cut to at most `limit` characters (140) at a grapheme boundary, counted in UTF-16
 * units, so the preview is within the limit however a receiver counts (units, code points,
 * graphemes).
 */
export function bodyPreview(body: string, limit = PREVIEW_LIMIT): string {
  if (body.length <= limit) return body;
  let end = 0;
  for (const { segment, index } of graphemes.segment(body)) {
    if (index + segment.length > limit) break;
    end = index + segment.length;
  }
  return body.slice(0, end);
}

export type PostSnapshot = {
  id: string;
  platform: string;
  status: string;
  external_post_id: string | null;
  permalink_url: string | null;
  error: string | null;
  body: string;
};

export function postEventBody(event: PostEvent, post: PostSnapshot): string {
  return JSON.stringify({
    event,
    post: {
      id: post.id,
      platform: post.platform,
      status: post.status,
      external_post_id: post.external_post_id,
      permalink_url: post.permalink_url,
      error: post.error,
      body_preview: bodyPreview(post.body),
    },
  });
}
