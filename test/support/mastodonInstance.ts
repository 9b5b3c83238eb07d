// A local server that answers Mastodon's engagement methods as documented, for the reply
// tests and the inbound bench: each token is one account with its mention notifications
// (GET /api/v1/notifications, types[]=mention, paged with min_id or newest first) and the
// statuses it posts (and the replies below a status, GET /api/v1/statuses/:id/context) (POST /api/v1/statuses, one status an Idempotency-Key, as Mastodon keeps
// them), public statuses found by a tag's timeline or the instance's search, and favourites,
// reblogs and follows (each kept once, as Mastodon does). `acceptThenFail` makes the next post
// be created and answered 503, as a response lost after the instance accepted it.
import { startJsonServer } from './jsonServer.ts';

export type Mention = {
  id: string;
  author: string;
  text: string;
  inReplyTo?: string;
  visibility?: string;
  /** What a hostile server might send instead: its HTML as is, a claimed time, a status id. */
  html?: string;
  createdAt?: string;
  statusId?: string;
};
export type PostedStatus = {
  id: string;
  status: string;
  in_reply_to_id: string | null;
  key: string;
  /** Whose token posted it. */
  token: string;
};

export type LocalMastodon = {
  url: string;
  /** Adds mention notifications for `token`'s account (ids ascending as added). */
  mention(token: string, m: Omit<Mention, 'id'>): Mention;
  statuses: PostedStatus[];
  /** A public status by someone else, found by search and its tags' timelines. */
  publicPost(author: string, text: string): string;
  /** Favourites, reblogs and follows made, once each: `favourite:<status id>` and so on. */
  acts: Set<string>;
  /** POSTs to favourite, reblog and follow, repeats included. */
  actRequests: number;
  /** POST /api/v1/statuses requests received, repeats included. */
  posts: number;
  acceptThenFail(times?: number): void;
  /** The next favourites, reblogs and follows answer `status` (and make nothing). */
  failActs(status: number, times?: number): void;
  /** The next searches and tag timelines answer 500. */
  failSearches(times?: number): void;
  /** GET /api/v1/notifications requests received. */
  notificationReads: number;
  /** While set, every notifications page is the first one again, whatever min_id says. */
  repeatPages: boolean;
  /** Forgets the Idempotency-Keys it was sent (Mastodon keeps them an hour). */
  forgetKeys(): void;
  /** While set, a status's context shows no replies yet (as an instance still indexing). */
  contextLags: boolean;
  close(): Promise<void>;
};

export async function startLocalMastodon(): Promise<LocalMastodon> {
  const mentions = new Map<string, Mention[]>();
  const byKey = new Map<string, PostedStatus>();
  let seq = 100;
  let failing = 0;
  let reads = 0;
  let repeating = false;
  let actFailures: number[] = [];
  let searchFailures = 0;
  let lagging = false;
  const state: Pick<LocalMastodon, 'statuses' | 'posts' | 'acts' | 'actRequests'> = {
    statuses: [],
    posts: 0,
    acts: new Set(),
    actRequests: 0,
  };
  const publicPosts: { id: string; author: string; text: string }[] = [];
  const asStatus = (p: { id: string; author: string; text: string }) => ({
    id: p.id,
    url: `${base}/@${p.author}/${p.id}`,
    content: `<p>${p.text}</p>`,
    created_at: new Date().toISOString(),
    in_reply_to_id: null,
    in_reply_to_account_id: null,
    visibility: 'public',
    account: { id: `acct-${p.author}`, acct: p.author },
  });
  let base = '';
  const server = await startJsonServer((req, json, url) => {
    const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!token) return json(401, { error: 'The access token is invalid' });
    if (req.method === 'GET' && url.pathname === '/api/v1/accounts/verify_credentials')
      return json(200, { id: `me-${token}`, username: 'brand', acct: 'brand' });
    if (req.method === 'GET' && url.pathname === '/api/v1/notifications') {
      reads++;
      const limit = Math.min(80, Number(url.searchParams.get('limit') ?? 40));
      const minId = repeating ? null : url.searchParams.get('min_id');
      const all = (mentions.get(token) ?? []).filter((m) => !minId || BigInt(m.id) > BigInt(minId));
      // min_id: the page just after it; otherwise the newest. Newest first either way.
      const page = (minId ? all.slice(0, limit) : all.slice(-limit)).reverse();
      return json(
        200,
        page.map((m) => ({
          id: m.id,
          type: 'mention',
          created_at: new Date().toISOString(),
          account: { id: `acct-${m.author}`, acct: m.author },
          status: {
            id: m.statusId ?? `s${m.id}`,
            url: `${base}/@${encodeURIComponent(m.author)}/s${m.id}`,
            content: m.html ?? `<p>${m.text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>`,
            created_at: m.createdAt ?? new Date().toISOString(),
            in_reply_to_id: m.inReplyTo ?? null,
            in_reply_to_account_id: m.inReplyTo ? `me-${token}` : null,
            visibility: m.visibility ?? 'public',
          },
        })),
      );
    }
    const tag = /^\/api\/v1\/timelines\/tag\/([^/]+)$/.exec(url.pathname);
    if ((tag || url.pathname === '/api/v2/search') && searchFailures > 0) {
      searchFailures--;
      return json(500, { error: 'Search is down' });
    }
    if (req.method === 'GET' && tag) {
      const wanted = `#${decodeURIComponent(tag[1]!)}`.toLowerCase();
      return json(
        200,
        publicPosts.filter((p) => p.text.toLowerCase().includes(wanted)).map(asStatus),
      );
    }
    if (req.method === 'GET' && url.pathname === '/api/v2/search') {
      const q = (url.searchParams.get('q') ?? '').toLowerCase();
      const found = publicPosts.filter((p) => p.text.toLowerCase().includes(q));
      return json(200, { accounts: [], hashtags: [], statuses: found.map(asStatus) });
    }
    const act = /^\/api\/v1\/(statuses|accounts)\/([^/]+)\/(favourite|reblog|follow)$/.exec(
      url.pathname,
    );
    if (req.method === 'POST' && act) {
      state.actRequests++;
      const refused = actFailures.shift();
      if (refused) return json(refused, { error: 'This action is not allowed' });
      state.acts.add(`${act[3]}:${decodeURIComponent(act[2]!)}`);
      return json(200, { id: decodeURIComponent(act[2]!) });
    }
    const context = /^\/api\/v1\/statuses\/([^/]+)\/context$/.exec(url.pathname);
    if (req.method === 'GET' && context) {
      const below = (lagging ? [] : state.statuses).filter(
        (st) => st.in_reply_to_id === decodeURIComponent(context[1]!),
      );
      return json(200, {
        ancestors: [],
        descendants: below.map((st) => ({
          id: st.id,
          url: `${base}/@brand/${st.id}`,
          in_reply_to_id: st.in_reply_to_id,
          account: { id: `me-${st.token}` },
        })),
      });
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/statuses') {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        state.posts++;
        const key = String(req.headers['idempotency-key'] ?? '');
        let status = key ? byKey.get(key) : undefined;
        if (!status) {
          const body = JSON.parse(raw) as { status: string; in_reply_to_id?: string };
          status = {
            id: String(++seq),
            status: body.status,
            in_reply_to_id: body.in_reply_to_id ?? null,
            key,
            token,
          };
          state.statuses.push(status);
          if (key) byKey.set(key, status);
        }
        if (failing > 0) {
          failing--;
          return json(503, { error: 'Service unavailable' });
        }
        json(200, { id: status.id, url: `${base}/@brand/${status.id}` });
      });
      return;
    }
    json(404, { error: 'Record not found' });
  });
  base = server.url;
  let ids = 1000;
  return {
    url: server.url,
    get statuses() {
      return state.statuses;
    },
    get posts() {
      return state.posts;
    },
    get acts() {
      return state.acts;
    },
    get actRequests() {
      return state.actRequests;
    },
    publicPost(author, text) {
      const id = String(++ids);
      publicPosts.push({ id, author, text });
      return id;
    },
    mention(token, m) {
      const made = { ...m, id: String(++ids) };
      mentions.set(token, [...(mentions.get(token) ?? []), made]);
      return made;
    },
    get notificationReads() {
      return reads;
    },
    get repeatPages() {
      return repeating;
    },
    set repeatPages(on: boolean) {
      repeating = on;
    },
    get contextLags() {
      return lagging;
    },
    set contextLags(on: boolean) {
      lagging = on;
    },
    forgetKeys() {
      byKey.clear();
    },
    failActs(status, times = 1) {
      actFailures = Array.from({ length: times }, () => status);
    },
    failSearches(times = 1) {
      searchFailures = times;
    },
    acceptThenFail(times = 1) {
      failing = times;
    },
    close: server.close,
  };
}
