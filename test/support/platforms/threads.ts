// A stand-in for Threads' publishing API on loopback, written from Meta's pages (Threads posts,
// reference/publishing, troubleshooting, overview, threads-media, insights), on the same host
// as Threads' OAuth stand-in (metaOauth.ts), whose tokens it takes (`access_token`).
// Containers are made by POST /v1.0/{user}/threads: an IMAGE or VIDEO fetches its URL (a
// failed fetch leaves the container in ERROR with FAILED_DOWNLOADING_*), every container is
// IN_PROGRESS for its first status reading and FINISHED after; a CAROUSEL takes 2-20 finished
// `is_carousel_item` children of the same user; `reply_to_id` must name a published post.
// POST /v1.0/{user}/threads_publish publishes a FINISHED container once (its status becomes
// PUBLISHED, and the post gets an id of its own), refuses one not finished with code 24
// (subcode 4279009, "Media Not Found") and counts toward the 24-hour quota that
// threads_publishing_limit reports. Graph errors are `{error: {message, type, code,
// error_subcode, fbtrace_id}}`; a dead token is 401 code 190.
import { graphError, graphToken, metaTime, objectNotFound } from './metaGraph.ts';
import { type MetaStandIn, startMetaOauth } from './metaOauth.ts';
import { type Answer, json, type Received } from './standIn.ts';

export type Container = {
  id: string;
  owner: string;
  params: Record<string, string>;
  status: 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';
  errorMessage?: string;
  /** Status readings left before it is FINISHED. */
  readsLeft: number;
  /** Its media is still being fetched (it stays IN_PROGRESS until then). */
  fetching: boolean;
  mediaId?: string;
};

export type ThreadsPost = {
  id: string;
  owner: string;
  container: string;
  text: string | undefined;
  mediaType: string;
  timestamp: string;
  permalink: string;
  repliedTo: string | undefined;
  children: string[];
};

export type ThreadsStandIn = MetaStandIn & {
  containers: Map<string, Container>;
  posts: ThreadsPost[];
  /** Media fetched from the URLs containers were given: the URL and the bytes' length. */
  fetched: { url: string; bytes: number }[];
  /** Publish calls for a container already published (each one a bug of the caller). */
  republished: string[];
  /** The account's quota: posts and replies each in a 24-hour moving window. */
  quota: { posts: number; replies: number };
  /** Status readings a container is IN_PROGRESS before it is FINISHED (default 1). */
  processingReads: number;
  /** Called once a publish made the post, before it is answered (a test kills a worker here). */
  onPublish?: (post: ThreadsPost) => void;
  /** Insights are answered (false: refused, as to a token without threads_manage_insights). */
  insightsScope: boolean;
  /** The id the next container or post will get. */
  nextId(): string;
  /** The next publish makes the post, then answers this instead of its id (a lost answer). */
  losePublishAnswer?: Answer;
  /**
   * A published container's status is read as the post it became, which has no status field
   * (code 100), as third parties report Threads answering; the pages document PUBLISHED.
   */
  publishedAnswersAsPost: boolean;
};

const DAY_MS = 86_400_000;

/** Threads' errors are THApiException, but for a dead token's (190, OAuthException). */
const TH_API = { type: 'THApiException' };
const threadsError = (status: number, code: number, message: string, subcode?: number) =>
  graphError(status, code, message, {
    ...(code === 190 ? {} : TH_API),
    ...(subcode ? { error_subcode: subcode } : {}),
  });

const notFound = (id: string) => objectNotFound(id, undefined, TH_API);

/** Threads counts characters, and an emoji as its UTF-8 bytes. */
const threadsLength = (text: string) => {
  let n = 0;
  for (const { segment } of new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text))
    n += /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u.test(segment)
      ? Buffer.byteLength(segment)
      : [...segment].length;
  return n;
};

export async function startThreadsStandIn(
  redirectUri = 'http://127.0.0.1/connect/threads/callback',
): Promise<ThreadsStandIn> {
  let next = 17_890_000_000_000_000n;
  const newId = () => String(++next);
  const containers = new Map<string, Container>();
  const posts: ThreadsPost[] = [];
  const fetched: { url: string; bytes: number }[] = [];
  const republished: string[] = [];
  // Assigned once the OAuth stand-in is up; the routes read it when requests come.
  let s: ThreadsStandIn;

  const fetchMedia = async (c: Container, url: string, kind: 'IMAGE' | 'VIDEO') => {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (!res.ok) throw new Error(String(res.status));
      fetched.push({ url, bytes: (await res.arrayBuffer()).byteLength });
    } catch {
      c.status = 'ERROR';
      c.errorMessage = kind === 'VIDEO' ? 'FAILED_DOWNLOADING_VIDEO' : 'FAILED_DOWNLOADING_IMAGE';
    }
    c.fetching = false;
  };

  const inWindow = (replies: boolean) =>
    posts
      .filter((p) => Date.now() - Date.parse(p.timestamp.replace('+0000', 'Z')) < DAY_MS)
      .filter((p) => (p.repliedTo !== undefined) === replies).length;

  const create = (user: { id: string; username: string }, q: Record<string, string>): Answer => {
    const type = q.media_type;
    if (!['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'].includes(type ?? ''))
      return threadsError(
        400,
        100,
        'Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}',
      );
    if (q.text !== undefined && threadsLength(q.text) > 500)
      return threadsError(400, 100, 'Param text must be at most 500 characters long.');
    if (type === 'TEXT' && !q.text)
      return threadsError(400, 100, 'Param text is required for TEXT');
    if (type === 'IMAGE' && !q.image_url)
      return threadsError(400, 100, 'Param image_url is required');
    if (type === 'VIDEO' && !q.video_url)
      return threadsError(400, 100, 'Param video_url is required');
    if (q.is_carousel_item === 'true' && (q.text || q.reply_to_id))
      return threadsError(400, 100, 'A carousel item carries no text and replies to nothing');
    if (q.reply_to_id && !posts.some((p) => p.id === q.reply_to_id)) return notFound(q.reply_to_id);
    if (type === 'CAROUSEL') {
      const ids = (q.children ?? '').split(',').filter(Boolean);
      if (ids.length < 2 || ids.length > 20)
        return threadsError(400, 100, 'A carousel has 2 to 20 children');
      for (const id of ids) {
        const child = containers.get(id);
        if (!child || child.owner !== user.id || child.params.is_carousel_item !== 'true')
          return notFound(id);
        if (child.status !== 'FINISHED')
          return threadsError(400, 24, 'The requested resource does not exist', 4279009);
      }
    }
    const c: Container = {
      id: newId(),
      owner: user.id,
      params: q,
      status: 'IN_PROGRESS',
      readsLeft: s.processingReads,
      fetching: type === 'IMAGE' || type === 'VIDEO',
    };
    if (type === 'IMAGE' || type === 'VIDEO')
      void fetchMedia(c, type === 'IMAGE' ? q.image_url! : q.video_url!, type);
    containers.set(c.id, c);
    return json(200, { id: c.id });
  };

  const publish = (user: { id: string; username: string }, q: Record<string, string>) => {
    const c = q.creation_id ? containers.get(q.creation_id) : undefined;
    if (!c || c.owner !== user.id) return notFound(q.creation_id ?? '');
    if (c.status === 'PUBLISHED') {
      republished.push(c.id);
      return threadsError(400, 24, 'The requested resource does not exist', 4279009);
    }
    if (c.status !== 'FINISHED')
      return threadsError(400, 24, 'The requested resource does not exist', 4279009);
    const reply = c.params.reply_to_id !== undefined;
    if (inWindow(reply) >= (reply ? s.quota.replies : s.quota.posts))
      return threadsError(400, 4, 'Application request limit reached');
    const post: ThreadsPost = {
      id: newId(),
      owner: user.id,
      container: c.id,
      text: c.params.text,
      mediaType:
        { TEXT: 'TEXT_POST', IMAGE: 'IMAGE', VIDEO: 'VIDEO', CAROUSEL: 'CAROUSEL_ALBUM' }[
          c.params.media_type!
        ] ?? 'TEXT_POST',
      timestamp: metaTime(Date.now()),
      permalink: `https://www.threads.com/@${user.username}/post/C${c.id.slice(-8)}`,
      repliedTo: c.params.reply_to_id,
      children: (c.params.children ?? '').split(',').filter(Boolean),
    };
    posts.push(post);
    c.status = 'PUBLISHED';
    c.mediaId = post.id;
    s.onPublish?.(post);
    const lost = s.losePublishAnswer;
    s.losePublishAnswer = undefined;
    return lost ?? json(200, { id: post.id });
  };

  const listed = (list: ThreadsPost[], q: Record<string, string>) => {
    const since = q.since ? Number(q.since) * 1000 : 0;
    const limit = Math.min(100, Number(q.limit ?? 25) || 25);
    const data = list
      .filter((p) => Date.parse(p.timestamp.replace('+0000', 'Z')) >= since)
      .reverse()
      .slice(0, limit)
      .map((p) => ({
        id: p.id,
        text: p.text,
        timestamp: p.timestamp,
        permalink: p.permalink,
        media_type: p.mediaType,
        ...(p.repliedTo ? { replied_to: { id: p.repliedTo } } : {}),
      }));
    return json(200, { data, paging: { cursors: { before: 'QVFIUm', after: 'QVFIUn' } } });
  };

  const route = (r: Received): Answer | undefined => {
    if (!r.path.startsWith('/v1.0/') || r.path === '/v1.0/me') return undefined;
    const q = { ...r.query, ...r.form };
    const user = s.userOf(graphToken(r));
    if (!user) return threadsError(401, 190, 'Error validating access token: Session has expired.');
    const [, a, b] = r.path.split('/').slice(1);
    const own = (id: string | undefined) => id === user.id;
    if (r.method === 'POST' && own(a) && b === 'threads') return create(user, q);
    if (r.method === 'POST' && own(a) && b === 'threads_publish') return publish(user, q);
    if (r.method === 'GET' && own(a) && b === 'threads_publishing_limit')
      return json(200, {
        data: [
          {
            quota_usage: inWindow(false),
            config: { quota_total: s.quota.posts, quota_duration: 86_400 },
            reply_quota_usage: inWindow(true),
            reply_config: { quota_total: s.quota.replies, quota_duration: 86_400 },
          },
        ],
      });
    if (r.method === 'GET' && own(a) && b === 'threads')
      return listed(
        posts.filter((p) => p.owner === user.id && !p.repliedTo),
        q,
      );
    if (r.method === 'GET' && own(a) && b === 'replies')
      return listed(
        posts.filter((p) => p.owner === user.id && p.repliedTo),
        q,
      );
    if (r.method === 'GET' && a && b === 'insights') {
      const post = posts.find((p) => p.id === a && p.owner === user.id);
      if (!post) return notFound(a);
      if (!s.insightsScope)
        return threadsError(403, 10, 'Application does not have permission for this action');
      const metrics = (q.metric ?? '').split(',').filter(Boolean);
      return json(200, {
        data: metrics.map((name, i) => ({
          name,
          period: 'lifetime',
          values: [{ value: (i + 1) * 3 }],
          title: name,
          id: `${post.id}/insights/${name}/lifetime`,
        })),
      });
    }
    if (r.method === 'GET' && a && b === undefined) {
      const c = containers.get(a);
      if (c && c.owner === user.id && c.status === 'PUBLISHED' && s.publishedAnswersAsPost)
        return threadsError(
          400,
          100,
          'Tried accessing nonexisting field (status) on node type (ThreadsMedia)',
        );
      if (c && c.owner === user.id && q.fields?.includes('status')) {
        if (c.status === 'IN_PROGRESS' && !c.fetching && c.readsLeft-- <= 0) c.status = 'FINISHED';
        return json(200, {
          status: c.status,
          id: c.id,
          ...(c.errorMessage ? { error_message: c.errorMessage } : {}),
        });
      }
      const post = posts.find((p) => p.id === a && p.owner === user.id);
      if (post) return json(200, { id: post.id, permalink: post.permalink });
      return notFound(a);
    }
    return undefined;
  };

  const meta = await startMetaOauth('threads', redirectUri, route);
  s = Object.assign(meta, {
    containers,
    posts,
    fetched,
    republished,
    quota: { posts: 250, replies: 1000 },
    processingReads: 1,
    insightsScope: true,
    nextId: () => String(next + 1n),
    publishedAnswersAsPost: false,
  }) as ThreadsStandIn;
  return s;
}
