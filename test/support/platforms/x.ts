// A stand-in for X's API v2 on loopback, written from X's documentation (docs.x.com, the
// xdevplatform/docs repository): OAuth 2.0 with PKCE and rotating single-use refresh tokens
// (reusing a spent one revokes its family, as 2026 reports say), /2/users/me, POST /2/tweets
// with the 403 for duplicate content and 429 with x-rate-limit-* headers, media by the simple
// and the chunked upload (its path form, its command form, or both) with processing states
// and expiring media ids, the user's timeline, and the tweets lookup
// with public_metrics. Every request body is checked against X's own OpenAPI schemas
// (x-openapi.json): one that does not fit is answered 400 as X does, and recorded.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import twitter from 'twitter-text';

const OPENAPI = JSON.parse(readFileSync(new URL('./x-openapi.json', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, unknown> };
};
// OpenAPI 3.0's keywords beyond JSON Schema (description, example) are ignored; the binary
// formats of a multipart body are not text to check.
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: 'x', components: OPENAPI.components });
const schemaOf = (name: string) => ajv.getSchema(`x#/components/schemas/${name}`)!;

export type XUser = { id: string; username: string; name: string };
export type XTweet = {
  id: string;
  authorId: string;
  /** As X echoes it: `& < >` escaped, a t.co link for attached media. */
  text: string;
  sent: string;
  createdAt: Date;
  replyTo: string | undefined;
  mediaIds: string[];
  metrics: { retweets: number; replies: number; likes: number; quotes: number; views: number };
};
export type XMedia = {
  id: string;
  ownerId: string;
  category: string;
  mediaType: string | undefined;
  totalBytes: number;
  segments: Map<number, number>;
  state: 'uploading' | 'pending' | 'in_progress' | 'succeeded' | 'failed';
  statusChecks: number;
  expiresAt: number;
};
/** What the stand-in answers instead of its own answer, for one matching request. */
export type Injected = {
  /** "POST /2/tweets", matched against the method and the path without its query. */
  line: string;
  /** `after`: the request takes effect (a post is made), then this answer replaces X's. */
  when?: 'before' | 'after';
  /** Matching requests let through first (1: the second such request is answered so). */
  skip?: number;
  answer:
    | { status: number; body: string | Buffer; headers?: Record<string, string> }
    | 'drop'
    | 'rate_limit';
};
export type XRequest = { method: string; path: string; query: URLSearchParams; body: unknown };

export type XStandIn = {
  url: string;
  /** The authorize page (X_AUTHORIZE_URL). */
  authorizeUrl: string;
  clientId: string;
  clientSecret: string;
  user: XUser;
  tweets: XTweet[];
  media: Map<string, XMedia>;
  requests: XRequest[];
  /** Request bodies that did not fit X's OpenAPI schema (a test expects none). */
  schemaViolations: { line: string; errors: string }[];
  /** Tokens handed out; `expireAccessTokens` makes every current access token answer 401. */
  issueTokens(scope?: string): { access_token: string; refresh_token: string };
  expireAccessTokens(): void;
  /** Refresh token grants answered, and spent ones presented again. */
  refreshes: { ok: number; reused: number };
  inject(...answers: Injected[]): void;
  /** Seconds until the rate-limit window resets, as x-rate-limit-reset says it. */
  rateLimitResetS: number;
  /** The repost count's name in public_metrics (docs: retweet_count; OpenAPI: repost_count). */
  repostField: 'retweet_count' | 'repost_count';
  /** STATUS polls a video or GIF takes to succeed; `failProcessing` ends it `failed`. */
  processingChecks: number;
  failProcessing: boolean;
  /**
   * What a STATUS answer leaves out: `id` (the docs' STATUS example names the media only by
   * the query), and `processing_info` once the media has succeeded. Default: nothing.
   */
  statusOmits: ('id' | 'processing_info')[];
  /**
   * Every 2xx answer with `data` also carries `errors` (X's partial errors: a referenced
   * resource not found), as X's answers may.
   */
  errorsBesideData: boolean;
  /**
   * The chunked upload's forms served: the path form (`/2/media/upload/initialize`,
   * `/{id}/append`, `/{id}/finalize`, OpenAPI), the command form (`command=INIT|APPEND|FINALIZE`
   * on `/2/media/upload`, the quickstart), or both. Default: the path form, as X serves today;
   * with `command` only, the path form's routes answer 404.
   */
  uploadForms: 'path' | 'command' | 'both';
  /** Each segment X took, in order, by either form: a test proves none was sent twice. */
  appends: { mediaId: string; segment: number; form: 'path' | 'command' }[];
  /**
   * Called when a segment arrives, before X takes it; answering `drop` cuts the connection
   * without taking it (a test kills its worker here).
   */
  onAppend: ((mediaId: string, segment: number) => 'drop' | undefined) | undefined;
  /** The `expires_after_secs` a new upload gets; an append or finalize after it is refused. */
  mediaExpiresAfterS: number;
  /** Called once X has made a post, before it answers (a test kills its worker here). */
  onCreate: ((t: XTweet) => void) | undefined;
  /** Timeline reads still to answer empty (X's timelines lag behind a new post). */
  timelineLag: number;
  close(): Promise<void>;
};

const MB = 1024 * 1024;
const LIMITS: Record<string, number> = {
  tweet_image: 5 * MB,
  tweet_gif: 15 * MB,
  tweet_video: 512 * MB,
};
const escapeText = (t: string) =>
  t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const problem = (status: number, title: string, detail: string, type = 'about:blank') => ({
  title,
  detail,
  type,
  status,
});
const invalidRequest = (message: string) => ({
  errors: [{ parameters: {}, message }],
  title: 'Invalid Request',
  detail: 'One or more parameters to your request was invalid.',
  type: 'https://api.twitter.com/2/problems/invalid-request',
});

export async function startXStandIn(
  opts: { user?: Partial<XUser>; clientId?: string; clientSecret?: string } = {},
): Promise<XStandIn> {
  let seq = 1_860_000_000_000_000_000n;
  const nextId = () => String(++seq);
  const user: XUser = { id: '1400000000000000001', username: 'brand', name: 'Brand', ...opts.user };
  const codes = new Map<
    string,
    { challenge: string; method: string; redirectUri: string; scope: string; expiresAt: number }
  >();
  const access = new Map<string, { family: string; expiresAt: number }>();
  const refresh = new Map<string, { family: string; spent: boolean; scope: string }>();
  const revoked = new Set<string>();
  const injected: Injected[] = [];
  const windowUsed = { n: 0 };

  const state: XStandIn = {
    url: '',
    authorizeUrl: '',
    clientId: opts.clientId ?? 'x-client-id',
    clientSecret: opts.clientSecret ?? 'x-client-secret',
    user,
    tweets: [],
    media: new Map(),
    requests: [],
    schemaViolations: [],
    refreshes: { ok: 0, reused: 0 },
    rateLimitResetS: 900,
    repostField: 'retweet_count',
    processingChecks: 2,
    failProcessing: false,
    statusOmits: [],
    errorsBesideData: false,
    timelineLag: 0,
    uploadForms: 'path',
    appends: [],
    onAppend: undefined,
    mediaExpiresAfterS: 86_400,
    onCreate: undefined,
    issueTokens: (scope = 'tweet.read tweet.write users.read media.write offline.access') =>
      mint(randomBytes(8).toString('hex'), scope) as {
        access_token: string;
        refresh_token: string;
      },
    expireAccessTokens: () => {
      for (const t of access.values()) t.expiresAt = 0;
    },
    inject: (...answers) => injected.push(...answers),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };

  function mint(family: string, scope: string) {
    const accessToken = `xat-${randomBytes(12).toString('hex')}`;
    access.set(accessToken, { family, expiresAt: Date.now() + 7_200_000 });
    const out: Record<string, unknown> = {
      token_type: 'bearer',
      expires_in: 7200,
      access_token: accessToken,
      scope,
    };
    if (scope.split(' ').includes('offline.access')) {
      const refreshToken = `xrt-${randomBytes(12).toString('hex')}`;
      refresh.set(refreshToken, { family, spent: false, scope });
      out.refresh_token = refreshToken;
    }
    return out;
  }

  const check = (line: string, schema: string, body: unknown) => {
    const validate = schemaOf(schema);
    if (validate(body)) return undefined;
    const errors = ajv.errorsText(validate.errors);
    state.schemaViolations.push({ line, errors });
    return invalidRequest(errors);
  };

  /** A multipart body's fields: files as a marker string, the rest as X's schema types them. */
  async function formOf(req: IncomingMessage, raw: Buffer) {
    const form = await new Request('http://form.invalid', {
      method: 'POST',
      headers: { 'content-type': String(req.headers['content-type'] ?? '') },
      body: new Uint8Array(raw),
    }).formData();
    const fields: Record<string, unknown> = {};
    const files: Record<string, Buffer> = {};
    for (const [k, v] of form.entries()) {
      if (typeof v === 'string')
        fields[k] = /^\d+$/.test(v) && k === 'segment_index' ? Number(v) : v;
      else {
        files[k] = Buffer.from(await v.arrayBuffer());
        fields[k] = 'binary';
      }
    }
    return { fields, files };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks)).catch((err: Error) => {
        if (!res.headersSent)
          res.writeHead(500).end(JSON.stringify(problem(500, 'Error', err.message)));
      });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    const url = new URL(req.url ?? '/', 'http://x.invalid');
    const line = `${req.method} ${url.pathname}`;
    const isJson = String(req.headers['content-type'] ?? '').startsWith('application/json');
    let parsed: unknown;
    if (isJson) {
      try {
        parsed = JSON.parse(raw.toString('utf8'));
      } catch {
        parsed = undefined;
      }
    }
    state.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      body: parsed,
    });
    const windowReset = Math.floor(Date.now() / 1000) + state.rateLimitResetS;
    const rateHeaders = {
      'x-rate-limit-limit': '100',
      'x-rate-limit-remaining': String(Math.max(0, 100 - windowUsed.n)),
      'x-rate-limit-reset': String(windowReset),
    };
    const partial = (status: number, body: unknown) =>
      state.errorsBesideData && status < 300 && typeof body === 'object' && body && 'data' in body
        ? {
            ...body,
            errors: [
              {
                value: '0',
                detail: 'Could not find user with ids: [0].',
                title: 'Not Found Error',
                resource_type: 'user',
                parameter: 'ids',
                type: 'https://api.twitter.com/2/problems/resource-not-found',
              },
            ],
          }
        : body;
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { 'content-type': 'application/json', ...rateHeaders, ...headers })
        .end(
          typeof body === 'string' || Buffer.isBuffer(body)
            ? body
            : JSON.stringify(partial(status, body)),
        );

    const index = injected.findIndex((i) => i.line === line);
    const waiting = index >= 0 && (injected[index]!.skip ?? 0) > 0;
    if (waiting) injected[index]!.skip!--;
    const injection = index >= 0 && !waiting ? injected.splice(index, 1)[0] : undefined;
    const answerInjected = () => {
      const a = injection!.answer;
      if (a === 'drop') return void res.socket?.destroy();
      if (a === 'rate_limit')
        return send(
          429,
          { errors: [{ code: 88, message: 'Rate limit exceeded' }] },
          {
            'x-rate-limit-remaining': '0',
          },
        );
      send(a.status, a.body, a.headers);
    };
    if (injection && injection.when !== 'after') return answerInjected();
    const respond = injection ? () => answerInjected() : send;

    // OAuth 2.0 (fundamentals/authentication/oauth-2-0/authorization-code).
    if (line === 'GET /i/oauth2/authorize') {
      const q = url.searchParams;
      const redirect = q.get('redirect_uri');
      if (q.get('client_id') !== state.clientId || !redirect || q.get('response_type') !== 'code')
        return send(400, { error: 'invalid_request' });
      if (
        !q.get('state') ||
        !q.get('code_challenge') ||
        !['S256', 'plain'].includes(q.get('code_challenge_method') ?? '')
      )
        return send(400, { error: 'invalid_request', error_description: 'PKCE is required' });
      const code = randomBytes(16).toString('base64url');
      codes.set(code, {
        challenge: q.get('code_challenge')!,
        method: q.get('code_challenge_method')!,
        redirectUri: redirect,
        scope: q.get('scope') ?? '',
        expiresAt: Date.now() + 30_000,
      });
      const to = new URL(redirect);
      to.searchParams.set('state', q.get('state')!);
      to.searchParams.set('code', code);
      return res.writeHead(302, { location: to.toString() }).end();
    }
    if (line === 'POST /2/oauth2/token') {
      const basic = `Basic ${Buffer.from(`${state.clientId}:${state.clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== basic)
        return send(401, {
          error: 'unauthorized_client',
          error_description: 'Missing valid authorization header',
        });
      if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
        return send(400, {
          error: 'invalid_request',
          error_description: 'Missing required parameter [grant_type].',
        });
      const form = new URLSearchParams(raw.toString('utf8'));
      if (form.has('client_id') && form.get('client_id') !== state.clientId)
        return send(401, { error: 'unauthorized_client', error_description: 'Invalid client_id' });
      const invalid = () =>
        send(400, {
          error: 'invalid_request',
          error_description: 'Value passed for the token was invalid.',
        });
      if (form.get('grant_type') === 'authorization_code') {
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge =
          grant?.method === 'S256'
            ? createHash('sha256').update(verifier).digest('base64url')
            : verifier;
        if (
          !grant ||
          grant.expiresAt < Date.now() ||
          grant.redirectUri !== form.get('redirect_uri') ||
          challenge !== grant.challenge
        )
          return invalid();
        return respond(200, mint(randomBytes(8).toString('hex'), grant.scope));
      }
      if (form.get('grant_type') === 'refresh_token') {
        const held = refresh.get(form.get('refresh_token') ?? '');
        if (!held || revoked.has(held.family)) return invalid();
        if (held.spent) {
          // A spent refresh token presented again: the whole family is revoked.
          state.refreshes.reused++;
          revoked.add(held.family);
          return invalid();
        }
        held.spent = true;
        state.refreshes.ok++;
        for (const [t, a] of access) if (a.family === held.family) access.delete(t);
        return respond(200, mint(held.family, held.scope));
      }
      return send(400, { error: 'unsupported_grant_type' });
    }

    // Everything else needs a user's bearer token.
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const token = bearer ? access.get(bearer) : undefined;
    if (!token || token.expiresAt < Date.now() || revoked.has(token.family))
      return send(401, problem(401, 'Unauthorized', 'Unauthorized'));

    if (line === 'GET /2/users/me') return respond(200, { data: user });

    if (line === 'POST /2/tweets') {
      if (!isJson || parsed === undefined)
        return send(400, invalidRequest('The body is not JSON.'));
      const violation = check(line, 'CreatePostsRequest', parsed);
      if (violation) return send(400, violation);
      const body = parsed as {
        text?: string;
        media?: { media_ids: string[] };
        reply?: { in_reply_to_tweet_id: string };
      };
      const mediaIds = body.media?.media_ids ?? [];
      const text = body.text ?? '';
      if (!text && !mediaIds.length)
        return send(400, invalidRequest('Text is required unless media is attached.'));
      if (twitter.parseTweet(text).weightedLength > 280)
        return send(
          403,
          problem(403, 'Forbidden', 'You are not permitted to perform this action.'),
        );
      for (const id of mediaIds) {
        const m = state.media.get(id);
        if (!m || m.ownerId !== user.id || m.state !== 'succeeded' || m.expiresAt < Date.now())
          return send(400, invalidRequest('Your media IDs are invalid.'));
      }
      const parent = body.reply?.in_reply_to_tweet_id;
      if (parent && !state.tweets.some((t) => t.id === parent))
        return send(
          403,
          problem(
            403,
            'Forbidden',
            'You attempted to reply to a Tweet that is deleted or not visible to you.',
          ),
        );
      if (windowUsed.n >= 100)
        return send(429, { errors: [{ code: 88, message: 'Rate limit exceeded' }] });
      if (state.tweets.some((t) => t.authorId === user.id && t.sent === text && text))
        return send(
          403,
          problem(
            403,
            'Forbidden',
            'You are not allowed to create a Tweet with duplicate content.',
          ),
        );
      windowUsed.n++;
      const id = nextId();
      const shown =
        escapeText(text) +
        (mediaIds.length ? ` https://t.co/${randomBytes(5).toString('hex')}` : '');
      state.tweets.push({
        id,
        authorId: user.id,
        text: shown,
        sent: text,
        createdAt: new Date(),
        replyTo: parent,
        mediaIds,
        metrics: { retweets: 0, replies: 0, likes: 0, quotes: 0, views: 0 },
      });
      state.onCreate?.(state.tweets.at(-1)!);
      return respond(201, { data: { id, text: shown, edit_history_tweet_ids: [id] } });
    }

    // Media (x-api/media: simple upload, chunked initialize / append / finalize, STATUS). The
    // chunked upload by its path form (OpenAPI), its command form (quickstart), or both.
    const paths = state.uploadForms !== 'command';
    const commands = state.uploadForms !== 'path';
    const noRoute = () => send(404, problem(404, 'Not Found Error', `No route for ${line}.`));
    /** An upload of the user's that has not expired. */
    const known = (id: unknown) => {
      const m = typeof id === 'string' ? state.media.get(id) : undefined;
      return m && m.ownerId === user.id && m.expiresAt >= Date.now() ? m : undefined;
    };
    const open = (body: { media_type?: string; total_bytes?: number; media_category?: string }) => {
      const category = body.media_category ?? 'tweet_image';
      if ((body.total_bytes ?? 0) > (LIMITS[category] ?? 5 * MB))
        return send(400, invalidRequest('File size exceeds the limit of its media_category.'));
      const id = nextId();
      state.media.set(id, {
        id,
        ownerId: user.id,
        category,
        mediaType: body.media_type,
        totalBytes: body.total_bytes ?? 0,
        segments: new Map(),
        state: 'uploading',
        statusChecks: 0,
        expiresAt: Date.now() + state.mediaExpiresAfterS * 1000,
      });
      return respond(200, {
        data: { id, media_key: `7_${id}`, expires_after_secs: state.mediaExpiresAfterS },
      });
    };
    const appendTo = (
      m: XMedia | undefined,
      segment: number,
      bytes: number,
      form: 'path' | 'command',
    ) => {
      if (!m) return send(400, invalidRequest('Invalid media id.'));
      if (m.state !== 'uploading') return send(400, invalidRequest('The upload is finalized.'));
      if (state.onAppend?.(m.id, segment) === 'drop') return void res.socket?.destroy();
      m.segments.set(segment, bytes);
      state.appends.push({ mediaId: m.id, segment, form });
      return respond(200, { data: { expires_at: Math.floor(m.expiresAt / 1000) } });
    };
    const finalizeOf = (m: XMedia | undefined) => {
      if (!m) return send(400, invalidRequest('Invalid media id.'));
      const received = [...m.segments.values()].reduce((a, b) => a + b, 0);
      if (received !== m.totalBytes)
        return send(
          400,
          invalidRequest(`File size mismatch: received ${received} of ${m.totalBytes} bytes.`),
        );
      if (m.state === 'uploading') m.state = 'pending';
      return respond(200, {
        data: {
          id: m.id,
          media_key: `7_${m.id}`,
          size: m.totalBytes,
          expires_after_secs: Math.floor((m.expiresAt - Date.now()) / 1000),
          processing_info: { state: 'pending', check_after_secs: 1 },
        },
      });
    };

    if (line === 'POST /2/media/upload') {
      if (!String(req.headers['content-type']).startsWith('multipart/form-data'))
        return send(400, invalidRequest('Expected a multipart body.'));
      const { fields, files } = await formOf(req, raw);
      if (commands && typeof fields.command === 'string') {
        // The quickstart's fields; each command's own are those of its path form's schema.
        const { command, media_id, ...rest } = fields;
        const what = `POST /2/media/upload (${command})`;
        if (command === 'INIT') {
          const body: Record<string, unknown> = { ...rest, total_bytes: Number(rest.total_bytes) };
          const violation = check(what, 'InitializeMediaUploadRequest', body);
          if (violation) return send(400, violation);
          if (!Number.isInteger(body.total_bytes) || typeof body.media_type !== 'string')
            return send(400, invalidRequest('total_bytes and media_type are required.'));
          return open(body as { media_type: string; total_bytes: number });
        }
        if (media_id === undefined || !/^[0-9]{1,19}$/.test(String(media_id)))
          return send(400, invalidRequest('media_id is required.'));
        if (command === 'APPEND') {
          const violation = check(what, 'AppendMediaUploadRequest', rest);
          if (violation) return send(400, violation);
          const segment = Number(rest.segment_index);
          return appendTo(known(media_id), segment, files.media?.length ?? 0, 'command');
        }
        if (command === 'FINALIZE') {
          if (Object.keys(rest).length) {
            const errors = `unexpected fields: ${Object.keys(rest).join(', ')}`;
            state.schemaViolations.push({ line: what, errors });
            return send(400, invalidRequest(errors));
          }
          return finalizeOf(known(media_id));
        }
        return send(400, invalidRequest(`Unknown command: ${command}.`));
      }
      const violation = check(line, 'MediaUploadRequest', fields);
      if (violation) return send(400, violation);
      const category = String(fields.media_category);
      const bytes = files.media?.length ?? 0;
      if (bytes > (LIMITS[category] ?? 5 * MB))
        return send(400, invalidRequest(`File size exceeds ${LIMITS[category]} bytes.`));
      const id = nextId();
      state.media.set(id, {
        id,
        ownerId: user.id,
        category,
        mediaType: undefined,
        totalBytes: bytes,
        segments: new Map([[0, bytes]]),
        state: 'succeeded',
        statusChecks: 0,
        expiresAt: Date.now() + 86_400_000,
      });
      return respond(200, {
        data: {
          id,
          media_key: `3_${id}`,
          size: bytes,
          expires_after_secs: 86400,
          image: { image_type: 'image/png', w: 10, h: 10 },
        },
      });
    }
    if (line === 'POST /2/media/upload/initialize') {
      if (!paths) return noRoute();
      if (!isJson || parsed === undefined)
        return send(400, invalidRequest('The body is not JSON.'));
      const violation = check(line, 'InitializeMediaUploadRequest', parsed);
      if (violation) return send(400, violation);
      return open(parsed as { media_type?: string; total_bytes?: number; media_category?: string });
    }
    const chunked = /^POST \/2\/media\/upload\/(\d+)\/(append|finalize)$/.exec(line);
    if (chunked) {
      if (!paths) return noRoute();
      const m = known(chunked[1]);
      if (chunked[2] === 'append') {
        const { fields, files } = await formOf(req, raw);
        const violation = check(
          'POST /2/media/upload/{id}/append',
          'AppendMediaUploadRequest',
          fields,
        );
        if (violation) return send(400, violation);
        return appendTo(m, Number(fields.segment_index), files.media?.length ?? 0, 'path');
      }
      return finalizeOf(m);
    }
    if (line === 'GET /2/media/upload') {
      const m = state.media.get(url.searchParams.get('media_id') ?? '');
      if (url.searchParams.get('command') !== 'STATUS' || !m || m.ownerId !== user.id)
        return send(400, invalidRequest('Invalid media id.'));
      if (m.state === 'pending' || m.state === 'in_progress') {
        m.statusChecks++;
        m.state =
          m.statusChecks >= state.processingChecks
            ? state.failProcessing
              ? 'failed'
              : 'succeeded'
            : 'in_progress';
      }
      const processing =
        m.state === 'succeeded'
          ? { state: 'succeeded', progress_percent: 100 }
          : m.state === 'failed'
            ? { state: 'failed', progress_percent: 50 }
            : { state: m.state, check_after_secs: 1, progress_percent: 50 };
      const omits = state.statusOmits;
      return respond(200, {
        data: {
          ...(omits.includes('id') ? {} : { id: m.id, media_key: `7_${m.id}` }),
          size: m.totalBytes,
          ...(omits.includes('processing_info') && m.state === 'succeeded'
            ? {}
            : { processing_info: processing }),
        },
      });
    }

    // Reading (x-api/posts/timelines, lookup; fundamentals/metrics).
    const view = (t: XTweet, fields: string[]) => ({
      id: t.id,
      text: t.text,
      edit_history_tweet_ids: [t.id],
      ...(fields.includes('created_at') ? { created_at: t.createdAt.toISOString() } : {}),
      ...(fields.includes('referenced_tweets') && t.replyTo
        ? { referenced_tweets: [{ type: 'replied_to', id: t.replyTo }] }
        : {}),
      ...(fields.includes('public_metrics')
        ? {
            public_metrics: {
              [state.repostField]: t.metrics.retweets,
              reply_count: t.metrics.replies,
              like_count: t.metrics.likes,
              quote_count: t.metrics.quotes,
              bookmark_count: 0,
              impression_count: t.metrics.views,
            },
          }
        : {}),
    });
    const timeline = /^GET \/2\/users\/(\d+)\/tweets$/.exec(line);
    if (timeline) {
      const q = url.searchParams;
      const max = Number(q.get('max_results') ?? 10);
      if (!Number.isInteger(max) || max < 5 || max > 100)
        return send(
          400,
          invalidRequest('The `max_results` query parameter value is not between 5 and 100'),
        );
      const start = q.get('start_time');
      if (start && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/.test(start))
        return send(
          400,
          invalidRequest('The `start_time` query parameter value is not a valid RFC 3339 time.'),
        );
      const exclude = (q.get('exclude') ?? '').split(',');
      const fields = (q.get('tweet.fields') ?? '').split(',');
      const lagging = state.timelineLag > 0;
      if (lagging) state.timelineLag--;
      const all = state.tweets
        .filter((t) => !lagging && t.authorId === timeline[1])
        .filter((t) => !start || t.createdAt.getTime() >= Date.parse(start))
        .filter((t) => !(exclude.includes('replies') && t.replyTo))
        .reverse();
      const from = Number(q.get('pagination_token') ?? 0);
      const page = all.slice(from, from + max);
      const next = from + max < all.length ? String(from + max) : undefined;
      return respond(200, {
        ...(page.length ? { data: page.map((t) => view(t, fields)) } : {}),
        meta: {
          result_count: page.length,
          ...(page.length ? { newest_id: page[0]!.id, oldest_id: page.at(-1)!.id } : {}),
          ...(next ? { next_token: next } : {}),
        },
      });
    }
    if (line === 'GET /2/tweets') {
      const ids = (url.searchParams.get('ids') ?? '').split(',').filter(Boolean);
      if (!ids.length || ids.length > 100) return send(400, invalidRequest('ids: 1 to 100 ids.'));
      const fields = (url.searchParams.get('tweet.fields') ?? '').split(',');
      const found = ids.flatMap((id) => state.tweets.filter((t) => t.id === id));
      const missing = ids.filter((id) => !state.tweets.some((t) => t.id === id));
      return respond(200, {
        ...(found.length ? { data: found.map((t) => view(t, fields)) } : {}),
        ...(missing.length
          ? {
              errors: missing.map((id) => ({
                value: id,
                detail: `Could not find tweet with ids: [${id}].`,
                title: 'Not Found Error',
                resource_type: 'tweet',
                parameter: 'ids',
                resource_id: id,
                type: 'https://api.twitter.com/2/problems/resource-not-found',
              })),
            }
          : {}),
      });
    }
    send(404, problem(404, 'Not Found Error', `No route for ${line}.`));
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.authorizeUrl = `${state.url}/i/oauth2/authorize`;
  return state;
}
