// A local server that answers Mastodon's engagement methods as documented, for the reply
// tests and the inbound bench: each token is one account with its mention notifications
// (GET /api/v1/notifications, types[]=mention, paged with min_id or newest first) and the
// statuses it posts (POST /api/v1/statuses, one status an Idempotency-Key, as Mastodon keeps
// them). `acceptThenFail` makes the next post be created and answered 503, as a response lost
// after the instance accepted it.
import { startJsonServer } from './jsonServer.ts';

export type Mention = {
  id: string;
  author: string;
  text: string;
  inReplyTo?: string;
  visibility?: string;
};
export type PostedStatus = {
  id: string;
  status: string;
  in_reply_to_id: string | null;
  key: string;
};

export type LocalMastodon = {
  url: string;
  /** Adds mention notifications for `token`'s account (ids ascending as added). */
  mention(token: string, m: Omit<Mention, 'id'>): Mention;
  statuses: PostedStatus[];
  /** POST /api/v1/statuses requests received, repeats included. */
  posts: number;
  acceptThenFail(times?: number): void;
  close(): Promise<void>;
};

export async function startLocalMastodon(): Promise<LocalMastodon> {
  const mentions = new Map<string, Mention[]>();
  const byKey = new Map<string, PostedStatus>();
  let seq = 100;
  let failing = 0;
  const state: Pick<LocalMastodon, 'statuses' | 'posts'> = { statuses: [], posts: 0 };
  let base = '';
  const server = await startJsonServer((req, json, url) => {
    const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!token) return json(401, { error: 'The access token is invalid' });
    if (req.method === 'GET' && url.pathname === '/api/v1/accounts/verify_credentials')
      return json(200, { id: `me-${token}`, username: 'brand', acct: 'brand' });
    if (req.method === 'GET' && url.pathname === '/api/v1/notifications') {
      const limit = Math.min(80, Number(url.searchParams.get('limit') ?? 40));
      const minId = url.searchParams.get('min_id');
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
            id: `s${m.id}`,
            url: `${base}/@${m.author}/s${m.id}`,
            content: `<p>${m.text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>`,
            created_at: new Date().toISOString(),
            in_reply_to_id: m.inReplyTo ?? null,
            in_reply_to_account_id: m.inReplyTo ? `me-${token}` : null,
            visibility: m.visibility ?? 'public',
          },
        })),
      );
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
    mention(token, m) {
      const made = { ...m, id: String(++ids) };
      mentions.set(token, [...(mentions.get(token) ?? []), made]);
      return made;
    },
    acceptThenFail(times = 1) {
      failing = times;
    },
    close: server.close,
  };
}
