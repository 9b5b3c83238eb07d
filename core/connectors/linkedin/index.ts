// LinkedIn (versioned REST, Posts API): a post is one `POST /rest/posts` as the member
// (`urn:li:person:{sub}`) or the connection's organization, with one image (`content.media`),
// 2-20 images (`content.multiImage`) or one video, uploaded first (./media.ts). LinkedIn takes
// no idempotency key; what makes a publication happen once is the attempt's steps and
// LinkedIn's own duplicate check: the post's URN is remembered the moment LinkedIn answers
// 201, and a retry that finds none re-sends the same commentary, which LinkedIn refuses with
// 422 DUPLICATE_POST naming the post it already has: that post is recorded, never a new one.
// A DUPLICATE_POST before any run of the attempt reached the POST names an older post with
// the same text, not this publication's: a final refusal quoting LinkedIn.
// Docs: learn.microsoft.com/linkedin/marketing/community-management/shares/posts-api.
import { publishedText } from '../../kernel/platformFit.ts';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import type { Storage } from '../../storage/storage.ts';
import { type Connector, PublicationError, type PublishRequest } from '../connector.ts';
import { CHECK_THE_ACCOUNT, PLATFORM_TIMEOUT_MS, type PlatformResponse } from '../http.ts';
import { linkedinClient, linkedinRefusal } from './api.ts';
import { type MediaDeps, uploadImage, uploadVideo } from './media.ts';
import { linkedinPostMetrics } from './metrics.ts';

/** A post's URN as LinkedIn answers it in `x-restli-id` (and names it in DUPLICATE_POST). */
const POST_URN = /^urn:li:(?:share|ugcPost):\d{1,40}$/;
/** The post a DUPLICATE_POST names: its share or ugcPost, or the activity showing it. */
const DUPLICATE_OF = /duplicate of (urn:li:(?:share|ugcPost|activity):\d{1,40})\b/;
const ORGANIZATION = /^urn:li:organization:\d{1,40}$/;

export const permalinkOf = (urn: string) => `https://www.linkedin.com/feed/update/${urn}/`;

/** Characters of LinkedIn's "little" text format that must be escaped to read as text. */
const RESERVED = /[\\|{}@[\]()<>#*_~]/g;

/**
 * The commentary as LinkedIn's little text format reads it: its reserved characters escaped,
 * so a "(" does not cut the post short, but addresses left whole (they stay links) and
 * `#tags` left as hashtags. The same text always gives the same commentary, which is what
 * LinkedIn's duplicate check compares.
 */
export function littleText(text: string): string {
  return text
    .split(/(https?:\/\/\S+|(?<![\p{L}\p{N}_])#[\p{L}\p{N}_]+)/u)
    .map((piece, i) => (i % 2 === 1 ? piece : piece.replace(RESERVED, (c) => `\\${c}`)))
    .join('');
}

/** A 422 naming the post LinkedIn already has with this commentary, or undefined. */
function duplicateOf(res: PlatformResponse): string | 'unnamed' | undefined {
  const body = res.json as
    | { message?: unknown; errorDetails?: { inputErrors?: { code?: unknown }[] } }
    | undefined;
  if (res.status !== 422 || typeof body !== 'object' || body === null) return undefined;
  const message = typeof body.message === 'string' ? body.message.slice(0, 2000) : '';
  const coded = Array.isArray(body.errorDetails?.inputErrors)
    ? body.errorDetails.inputErrors.some((e) => e?.code === 'DUPLICATE_POST')
    : false;
  const urn = DUPLICATE_OF.exec(message)?.[1];
  if (urn) return urn;
  return coded ? 'unnamed' : undefined;
}

/**
 * The created post's URN: `x-restli-id` as the Posts API documents it, else `x-linkedin-id`
 * (which LinkedIn's answers also carry), else an `id` in the body (the older ugcPosts answer);
 * URL-encoded or not, as Rest.li encodes URNs elsewhere. Only a share or ugcPost URN counts.
 */
function createdUrn(res: PlatformResponse): string | undefined {
  const body = res.json as { id?: unknown } | undefined;
  const said = [
    res.headers['x-restli-id'],
    res.headers['x-linkedin-id'],
    typeof body === 'object' && body !== null ? body.id : undefined,
  ];
  for (const value of said) {
    if (typeof value !== 'string' || value.length > 200) continue;
    const urn = /^urn%3A/i.test(value) ? safeDecode(value) : value.trim();
    if (urn && POST_URN.test(urn)) return urn;
  }
  return undefined;
}

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
};

export type LinkedInDeps = {
  outbound: OutboundPolicy;
  storage: Storage;
  /** LinkedIn's API (LINKEDIN_API_URL), without a trailing slash. */
  apiUrl: string;
  /** LinkedIn's OAuth host (LINKEDIN_OAUTH_URL), which also serves its upload addresses. */
  oauthUrl?: string;
  requestTimeoutMs?: number;
  /** How long an upload's processing is polled in one attempt, and how often; tests shorten it. */
  mediaPoll?: { intervalMs: number; boundMs: number };
};

/** The steps of an attempt: the post's URN once LinkedIn answered 201. */
const POSTED = 'linkedin.post';
/** Remembered just before `POST /rest/posts`: a retry knows a post may already exist. */
const POSTING = 'linkedin.posting';

function authorOf(credentials: Record<string, unknown>): string {
  const { organization, sub } = credentials;
  if (typeof organization === 'string' && organization) {
    if (!ORGANIZATION.test(organization))
      throw new PublicationError(
        `The LinkedIn connection's organization "${organization.slice(0, 60)}" is not an organization URN (urn:li:organization:N); change it on the Accounts page.`,
        { retryable: false },
      );
    return organization;
  }
  if (typeof sub !== 'string' || !/^[\w-]{1,100}$/.test(sub))
    throw new PublicationError(
      'The LinkedIn connection lacks the member id (sub) it posts as; reconnect it.',
      { retryable: false, reconnect: true },
    );
  return `urn:li:person:${sub}`;
}

export function linkedinConnector(deps: LinkedInDeps): Connector {
  const timeoutMs = deps.requestTimeoutMs ?? PLATFORM_TIMEOUT_MS;

  async function content(req: PublishRequest, media: MediaDeps, author: string) {
    const { post } = req;
    if (!post.media.length) return undefined;
    const video = post.media.find((m) => m.kind === 'video');
    if (video) {
      if (post.media.length > 1)
        throw new PublicationError('A LinkedIn post carries one video and nothing else.', {
          retryable: false,
        });
      return { media: { id: await uploadVideo(media, author, video, 0) } };
    }
    if (post.media.length > 20)
      throw new PublicationError(
        `A LinkedIn post carries at most 20 images; this one has ${post.media.length}.`,
        { retryable: false },
      );
    const images: { id: string; altText?: string }[] = [];
    for (const [i, m] of post.media.entries())
      images.push({
        id: await uploadImage(media, author, m, i),
        ...(m.alt ? { altText: m.alt.slice(0, 4086) } : {}),
      });
    return images.length === 1 ? { media: images[0] } : { multiImage: { images } };
  }

  return {
    async publish(req) {
      const done = await req.steps.recall(POSTED);
      if (done) return { externalPostId: done, permalinkUrl: permalinkOf(done) };

      const { post } = req;
      const call = linkedinClient(deps.outbound, deps, req.account, timeoutMs);
      const author = authorOf(req.account.credentials);
      const media: MediaDeps = {
        call,
        storage: deps.storage,
        steps: req.steps,
        signal: req.signal,
        poll: deps.mediaPoll ?? { intervalMs: 3_000, boundMs: 40_000 },
      };
      const attached = await content(req, media, author);
      req.signal.throwIfAborted();

      const body = {
        author,
        commentary: littleText(publishedText(post.body, post.hashtags)),
        visibility: 'PUBLIC',
        distribution: {
          feedDistribution: 'MAIN_FEED',
          targetEntities: [],
          thirdPartyDistributionChannels: [],
        },
        ...(attached ? { content: attached } : {}),
        lifecycleState: 'PUBLISHED',
        isReshareDisabledByAuthor: false,
      };
      // Whether an earlier run of this attempt may have made the post: only then is a
      // DUPLICATE_POST this publication's own post rather than an older one with this text.
      const triedBefore = (await req.steps.recall(POSTING)) !== undefined;
      await req.steps.remember(POSTING, new Date().toISOString());
      const res = await call('/rest/posts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        answer: [422],
      });
      if (res.status === 422) {
        const existing = duplicateOf(res);
        if (!existing) throw linkedinRefusal(res);
        if (!triedBefore)
          throw new PublicationError(
            `LinkedIn already has this text${existing === 'unnamed' ? '' : ` as ${existing}`}, ` +
              'posted before this publication: change the text to post it again.',
            { retryable: false, status: 422 },
          );
        if (existing === 'unnamed')
          throw new PublicationError(
            `LinkedIn refused the post as a duplicate without naming the post it has; ${CHECK_THE_ACCOUNT}`,
            { retryable: false },
          );
        await req.steps.remember(POSTED, existing);
        return { externalPostId: existing, permalinkUrl: permalinkOf(existing) };
      }
      const id = createdUrn(res);
      if (!id)
        throw new PublicationError(
          `LinkedIn answered ${res.status} to POST /rest/posts without the post's URN in x-restli-id; ${CHECK_THE_ACCOUNT}`,
          { retryable: false },
        );
      await req.steps.remember(POSTED, id);
      return { externalPostId: id, permalinkUrl: permalinkOf(id) };
    },

    postMetrics(account, externalIds) {
      const call = linkedinClient(deps.outbound, deps, account, timeoutMs);
      return linkedinPostMetrics(call, account, externalIds);
    },
  };
}
