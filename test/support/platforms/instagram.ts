// A stand-in for Instagram's Graph host (graph.instagram.com, Instagram Login tokens) on
// loopback, written from Meta's Instagram Platform pages, not from the connector: content
// publishing (IG User Media, media_publish, content_publishing_limit), IG Container (status_code
// IN_PROGRESS → FINISHED, ERROR with the subcode in `status`, EXPIRED after 24 h, PUBLISHED),
// IG Media (permalink, like_count, comments_count) and Media Insights, and the error codes page
// (Graph error bodies: 190 a dead token, 100 a bad parameter, 9004/2207052 media that could not
// be downloaded, 9007/2207027 a container not ready, 9/2207042 the publishing limit, 10 a
// missing permission). Media are FETCHED from the URL given, as Meta fetches them with cURL:
// an image at creation (a failed fetch is refused at once), a video while the container is
// IN_PROGRESS (a failed fetch makes it ERROR); a feed image outside 4:5 to 1.91:1 is refused
// (2207009). The OAuth routes are metaOauth.ts's, on the
// same host; `answerNext` serves hostile answers.
// Sources: developers.facebook.com/docs/instagram-platform/content-publishing/,
// …/instagram-graph-api/reference/ig-user/media, …/ig-user/media_publish,
// …/ig-user/content_publishing_limit, …/reference/ig-container, …/reference/instagram-media,
// …/reference/instagram-media/insights, …/instagram-platform/error-codes; the container
// status text "Error: Media upload has failed with error code 2207082" and the 2207052 body as
// reported in gitroomhq/postiz-app#1992 and #1900.
import sharp from 'sharp';
import { graphError, graphToken, metaTime, objectNotFound, transientError } from './metaGraph.ts';
import { type MetaStandIn, startMetaOauth } from './metaOauth.ts';
import { type Answer, json, type Received } from './standIn.ts';

export type IgContainer = {
  id: string;
  owner: string;
  mediaType: 'IMAGE' | 'VIDEO' | 'REELS' | 'CAROUSEL' | 'STORIES';
  /** The parameters it was created with (query and form together). */
  params: Record<string, string>;
  status: 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';
  /** ERROR's subcode, which `status` then holds. */
  subcode?: number;
  /** Status reads still answered IN_PROGRESS. */
  pending: number;
  /** The video's fetch, while it runs. */
  fetching?: Promise<void>;
  carouselItem: boolean;
  children: string[];
  /** The media it was published as. */
  mediaId?: string;
};

export type IgMedia = {
  id: string;
  owner: string;
  container: string;
  mediaType: string;
  caption: string;
  timestamp: string;
  permalink: string;
  likes: number;
  comments: number;
  shares: number;
  views: number;
};

export type InstagramStandIn = MetaStandIn & {
  containers: Map<string, IgContainer>;
  media: IgMedia[];
  /** Status reads a new container answers IN_PROGRESS before FINISHED (default 1). */
  processingPolls: number;
  /** The next container made ends ERROR with this subcode (e.g. 2207026, an unsupported video). */
  failNext(subcode: number): void;
  /** The container is EXPIRED (24 h passed without its publication). */
  expire(containerId: string): void;
  /** The publishing limit of every account: `quota_total` in 24 h (default 50). */
  quotaTotal: number;
  /** Whether tokens hold instagram_business_manage_insights (default true). */
  insightsAllowed: boolean;
  /**
   * Called once a container is published, before Instagram answers; the answer waits for it
   * (a test kills the worker here).
   */
  onPublished: ((media: IgMedia) => Promise<void> | void) | undefined;
  /** Every URL Instagram was asked to fetch, and the status each fetch answered. */
  fetches: { url: string; status: number }[];
  /** The next this many container status reads answer 500 (Meta's transient code 2). */
  failingStatusReads: number;
  /** The id the next container or media made will have (to tell `answerNext` its path). */
  peekNextId(): string;
  /** The next publish is made, and then answered 500 as a transient error (the answer is lost). */
  loseNextPublishAnswer(): void;
};

const DAY_MS = 86_400_000;
/** Instagram's ids are long decimal numbers. */
let seq = 17_900_000_000_000_000n;
const nextId = () => String(++seq);
const shortcode = () => Math.random().toString(36).slice(2, 13).replace(/^\d/, 'C');

/** The version prefix Instagram's paths take (`/v25.0/...`) or go without. */
const unversioned = (path: string) => path.replace(/^\/v\d{1,2}\.\d\//, '/');

/** Parameters as Meta takes them: in the query string, a form body or a JSON body. */
const paramsOf = (r: Received): Record<string, string> => {
  const body =
    typeof r.json === 'object' && r.json !== null
      ? Object.fromEntries(
          Object.entries(r.json as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
        )
      : {};
  const { access_token: _, ...rest } = { ...r.query, ...r.form, ...body };
  return rest;
};

export async function startInstagramStandIn(redirectUri: string): Promise<InstagramStandIn> {
  const containers = new Map<string, IgContainer>();
  const media: IgMedia[] = [];
  const published: { owner: string; at: number }[] = [];
  let failing: number | undefined;
  let losing = false;
  let standIn: InstagramStandIn;

  /**
   * Meta fetching a URL with cURL: the bytes, or undefined for any failure or a non-2xx
   * answer (a failed download).
   */
  async function fetchMedia(url: string): Promise<Buffer | undefined> {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      const bytes = Buffer.from(await res.arrayBuffer());
      standIn.fetches.push({ url, status: res.status });
      return res.ok ? bytes : undefined;
    } catch {
      standIn.fetches.push({ url, status: 0 });
      return undefined;
    }
  }

  /** A feed image outside 4:5 to 1.91:1 is refused at creation (code 36003, subcode 2207009). */
  async function aspectRefusal(bytes: Buffer): Promise<Answer | undefined> {
    const { width, height } = await sharp(bytes)
      .metadata()
      .catch(() => ({ width: undefined, height: undefined }));
    if (!width || !height)
      return graphError(400, 9004, 'The media format is not supported.', {
        error_subcode: 2207005,
      });
    const ratio = width / height;
    if (ratio >= 0.8 && ratio <= 1.91) return undefined;
    return graphError(400, 36003, 'The aspect ratio is not supported.', {
      error_subcode: 2207009,
      is_transient: false,
      error_user_title: 'Cannot Publish Image',
      error_user_msg: `The submitted image with aspect ratio ('${Math.round(ratio * 100) / 100}/1',) cannot be published. Please submit an image with a valid aspect ratio.`,
    });
  }

  const downloadFailed = (url: string) =>
    graphError(400, 9004, 'Only photo or video can be accepted as media type.', {
      error_subcode: 2207052,
      is_transient: false,
      error_user_title: "Media download has failed. The media URI doesn't meet our requirements.",
      error_user_msg: `The media could not be fetched from this URI: ${url}. Please check the limits and try again.`,
    });

  async function create(user: string, p: Record<string, string>): Promise<Answer> {
    const carouselItem = p.is_carousel_item === 'true';
    const type = (p.media_type ?? (p.image_url ? 'IMAGE' : '')).toUpperCase();
    const make = (c: Omit<IgContainer, 'id' | 'owner' | 'params' | 'status' | 'pending'>) => {
      const container: IgContainer = {
        id: nextId(),
        owner: user,
        params: p,
        status: 'IN_PROGRESS',
        pending: standIn.processingPolls,
        ...c,
      };
      if (failing !== undefined) {
        container.status = 'ERROR';
        container.subcode = failing;
        failing = undefined;
      }
      containers.set(container.id, container);
      return container;
    };
    if (type === 'CAROUSEL') {
      const ids = (p.children ?? '').split(',').filter(Boolean);
      if (ids.length < 2 || ids.length > 10)
        return graphError(400, 100, 'The carousel must have between 2 and 10 children.', {
          error_subcode: 2207055,
        });
      for (const id of ids) {
        const child = containers.get(id);
        if (!child || child.owner !== user || !child.carouselItem)
          return graphError(
            400,
            100,
            `Invalid parameter: children ${id} is not a carousel item container.`,
            { error_subcode: 2207040 },
          );
      }
      if (p.caption && [...p.caption].length > 2200)
        return graphError(400, 100, 'The caption is too long.', { error_subcode: 2207005 });
      const c = make({ mediaType: 'CAROUSEL', carouselItem: false, children: ids });
      return json(200, { id: c.id });
    }
    if (p.caption && [...p.caption].length > 2200)
      return graphError(400, 100, 'The caption is too long.', { error_subcode: 2207005 });
    if (type === 'IMAGE' || (type === 'STORIES' && p.image_url)) {
      if (!p.image_url) return graphError(400, 100, 'The parameter image_url is required.');
      // An image is downloaded while the creation is answered.
      const bytes = await fetchMedia(p.image_url);
      if (!bytes) return downloadFailed(p.image_url);
      const refused = type === 'IMAGE' ? await aspectRefusal(bytes) : undefined;
      if (refused) return refused;
      const c = make({ mediaType: type, carouselItem, children: [] });
      return json(200, { id: c.id });
    }
    if (type === 'VIDEO' || type === 'REELS' || type === 'STORIES') {
      if (!p.video_url) return graphError(400, 100, 'The parameter video_url is required.');
      if (type === 'VIDEO' && !carouselItem)
        return graphError(
          400,
          100,
          'The VIDEO media type is no longer supported for feed posts. Please use REELS instead.',
          { error_subcode: 2207065 },
        );
      const c = make({ mediaType: type, carouselItem, children: [] });
      // A video is downloaded while the container is processed.
      const url = p.video_url;
      c.fetching = fetchMedia(url).then((ok) => {
        if (!ok && c.status === 'IN_PROGRESS') {
          c.status = 'ERROR';
          c.subcode = 2207052;
        }
      });
      return json(200, { id: c.id });
    }
    return graphError(
      400,
      100,
      'Invalid parameter: media_type must be one of IMAGE, REELS, STORIES, CAROUSEL, VIDEO (carousel items).',
    );
  }

  function statusText(c: IgContainer) {
    switch (c.status) {
      case 'ERROR':
        return `Error: Media upload has failed with error code ${c.subcode}`;
      case 'FINISHED':
        return 'Finished: Media has been uploaded and it is ready to be published.';
      case 'IN_PROGRESS':
        return 'In Progress: Media is still being processed.';
      case 'EXPIRED':
        return 'Expired: The container was not published within 24 hours.';
      case 'PUBLISHED':
        return 'Published: Media has been published.';
    }
  }

  async function readContainer(c: IgContainer, fields: string[]): Promise<Answer> {
    if (standIn.failingStatusReads > 0) {
      standIn.failingStatusReads--;
      return transientError();
    }
    if (c.status === 'IN_PROGRESS') {
      await c.fetching;
      if (c.status === 'IN_PROGRESS') {
        if (c.pending > 0) c.pending--;
        else c.status = 'FINISHED';
      }
    }
    const out: Record<string, unknown> = { id: c.id };
    if (fields.includes('status_code')) out.status_code = c.status;
    if (fields.includes('status')) out.status = statusText(c);
    return json(200, out);
  }

  async function publish(user: string, p: Record<string, string>): Promise<Answer> {
    const c = p.creation_id ? containers.get(p.creation_id) : undefined;
    if (!c || c.owner !== user) return objectNotFound(p.creation_id ?? '', 'POST');
    if (c.carouselItem)
      return graphError(400, 100, 'A carousel item is published through its carousel container.');
    const window = published.filter((x) => x.owner === user && x.at > Date.now() - DAY_MS);
    if (window.length >= standIn.quotaTotal)
      return graphError(400, 9, 'Application request limit reached', {
        error_subcode: 2207042,
        is_transient: false,
        error_user_title: 'Maximum posts reached',
        error_user_msg:
          'You have reached the maximum number of posts that is allowed to be published by an account in 24 hours.',
      });
    if (c.status === 'PUBLISHED')
      return graphError(400, 9007, 'The media has already been published.', {
        error_subcode: 2207008,
      });
    if (c.status === 'EXPIRED')
      return graphError(400, 9007, 'The media container has expired.', { error_subcode: 2207008 });
    const children = c.children.map((id) => containers.get(id)!);
    if (c.status !== 'FINISHED' || children.some((k) => k.status !== 'FINISHED'))
      return graphError(
        400,
        9007,
        'Media ID is not available. The media is not ready for publishing, please wait for a moment.',
        { error_subcode: 2207027 },
      );
    const m: IgMedia = {
      id: nextId(),
      owner: user,
      container: c.id,
      mediaType:
        c.mediaType === 'REELS'
          ? 'VIDEO'
          : c.mediaType === 'CAROUSEL'
            ? 'CAROUSEL_ALBUM'
            : c.mediaType === 'STORIES'
              ? 'STORY'
              : 'IMAGE',
      caption: c.params.caption ?? '',
      timestamp: metaTime(Date.now()),
      permalink: `https://www.instagram.com/${c.mediaType === 'REELS' ? 'reel' : c.mediaType === 'STORIES' ? 'stories' : 'p'}/${shortcode()}/`,
      likes: 0,
      comments: 0,
      shares: 0,
      views: 0,
    };
    c.status = 'PUBLISHED';
    c.mediaId = m.id;
    media.push(m);
    published.push({ owner: user, at: Date.now() });
    await standIn.onPublished?.(m);
    if (losing) {
      losing = false;
      return transientError();
    }
    return json(200, { id: m.id });
  }

  const INSIGHTS = new Set([
    'views',
    'reach',
    'likes',
    'comments',
    'shares',
    'saved',
    'total_interactions',
  ]);

  /** The publishing API's paths are under an object id; the OAuth routes answer the rest. */
  const route = (r: Received) => {
    const segments = unversioned(r.path).split('/').filter(Boolean);
    return segments.length && /^\d+$/.test(segments[0]!) ? publishing(r, segments) : undefined;
  };

  async function publishing(r: Received, segments: string[]): Promise<Answer | undefined> {
    const holder = standIn.userOf(graphToken(r));
    if (!holder)
      return graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');
    const [id, edge] = segments as [string, string | undefined];
    const p = paramsOf(r);
    const fields = (p.fields ?? '').split(',').filter(Boolean);
    const userEdge = ['media', 'stories', 'media_publish', 'content_publishing_limit'].includes(
      edge ?? '',
    );
    if (userEdge && id !== holder.id) return objectNotFound(id, r.method);
    if (r.method === 'POST' && edge === 'media') return create(holder.id, p);
    if (r.method === 'POST' && edge === 'media_publish') return publish(holder.id, p);
    if (r.method === 'GET' && edge === 'content_publishing_limit') {
      const usage = published.filter(
        (x) => x.owner === holder.id && x.at > Date.now() - DAY_MS,
      ).length;
      return json(200, {
        data: [
          {
            quota_usage: usage,
            ...(fields.includes('config')
              ? { config: { quota_total: standIn.quotaTotal, quota_duration: 86_400 } }
              : {}),
          },
        ],
      });
    }
    if (r.method === 'GET' && (edge === 'media' || edge === 'stories')) {
      // The feed's list leaves stories out; /stories lists only them (IG User Stories).
      const mine = media
        .filter((m) => m.owner === holder.id && (m.mediaType === 'STORY') === (edge === 'stories'))
        .reverse();
      const limit = Math.min(Number(p.limit ?? 25) || 25, 100);
      return json(200, {
        data: mine.slice(0, limit).map((m) => ({
          id: m.id,
          ...(fields.includes('caption') ? { caption: m.caption } : {}),
          ...(fields.includes('timestamp') ? { timestamp: m.timestamp } : {}),
          ...(fields.includes('media_type') ? { media_type: m.mediaType } : {}),
          ...(fields.includes('permalink') ? { permalink: m.permalink } : {}),
        })),
        paging: { cursors: { before: 'QVFIU', after: 'QVFIV' } },
      });
    }
    if (r.method === 'GET' && edge === 'insights') {
      const m = media.find((x) => x.id === id && x.owner === holder.id);
      if (!m) return objectNotFound(id, 'GET');
      if (!standIn.insightsAllowed)
        return graphError(403, 10, '(#10) Application does not have permission for this action');
      const metrics = (p.metric ?? '').split(',').filter(Boolean);
      const unknown = metrics.find((x) => !INSIGHTS.has(x));
      if (unknown)
        return graphError(
          400,
          100,
          `(#100) metric[0] must be one of the following values: ${[...INSIGHTS].join(', ')}`,
        );
      const values: Record<string, number> = {
        views: m.views,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        reach: m.views,
        saved: 0,
        total_interactions: m.likes + m.comments + m.shares,
      };
      return json(200, {
        data: metrics.map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: values[name] ?? 0 }],
          title: name,
          description: '',
          id: `${m.id}/insights/${name}/lifetime`,
        })),
      });
    }
    if (r.method === 'GET' && !edge) {
      const c = containers.get(id);
      if (c && c.owner === holder.id) {
        if (fields.includes('status_code') || fields.includes('status'))
          return readContainer(c, fields);
        return json(200, { id: c.id });
      }
      const m = media.find((x) => x.id === id && x.owner === holder.id);
      if (!m) return objectNotFound(id, 'GET');
      const all: Record<string, unknown> = {
        id: m.id,
        permalink: m.permalink,
        like_count: m.likes,
        comments_count: m.comments,
        caption: m.caption,
        timestamp: m.timestamp,
        media_type: m.mediaType,
      };
      return json(
        200,
        Object.fromEntries(Object.entries(all).filter(([k]) => k === 'id' || fields.includes(k))),
      );
    }
    return undefined;
  }

  const oauth = await startMetaOauth('instagram', redirectUri, route);
  standIn = {
    ...oauth,
    containers,
    media,
    processingPolls: 1,
    failNext(subcode) {
      failing = subcode;
    },
    expire(containerId) {
      const c = containers.get(containerId);
      if (c) c.status = 'EXPIRED';
    },
    quotaTotal: 50,
    insightsAllowed: true,
    onPublished: undefined,
    fetches: [],
    failingStatusReads: 0,
    peekNextId: () => String(seq + 1n),
    loseNextPublishAnswer() {
      losing = true;
    },
  };
  return standIn;
}
