// A stand-in for LinkedIn on loopback, written from LinkedIn's public documentation (not from
// the connector): the OAuth token endpoint (with partner refresh tokens or without), OpenID
// userinfo, and the versioned REST API's Posts, Images and Videos, which check on every call
// the bearer token, a LinkedIn-Version that is active and X-Restli-Protocol-Version 2.0.0.
// Sources (learn.microsoft.com/linkedin): shared/authentication/authorization-code-flow and
// programmatic-refresh-tokens; consumer/.../sign-in-with-linkedin-v2 (userinfo);
// marketing/versioning (LinkedIn-Version, sunset versions); community-management/shares/
// posts-api (required fields, 201 with x-restli-id and no body), images-api (initializeUpload,
// the PUT, the image's status), videos-api (initializeUpload, ranged PUTs answered with an
// ETag, finalizeUpload, processing status),
// multiimage-post-api (2-20 images); shared/api-guide/concepts/rate-limits (429, daily,
// no headers); the DUPLICATE_POST answer as reported in Arisamiga/Linkedin-RSS#5. Post
// statistics are in ./linkedinAnalytics.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerAnalytics, type LinkedInPostStats } from './linkedinAnalytics.ts';

export type { LinkedInPostStats } from './linkedinAnalytics.ts';

export type LinkedInPost = {
  urn: string;
  author: string;
  commentary: string;
  content: Record<string, unknown> | undefined;
  body: Record<string, unknown>;
  /** What LinkedIn's statistics say of it (zero where unset). */
  stats?: Partial<LinkedInPostStats>;
};

export type LinkedInVideo = {
  urn: string;
  owner: string;
  size: number;
  parts: { firstByte: number; lastByte: number; etag: string | null; bytes: number }[];
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  /** Status reads still answered PROCESSING after the upload is finalized. */
  processingPolls: number;
  polls: number;
};

/** An answer the test puts in place of the next one (a fuzzed or garbled platform). */
export type Override = (res: ServerResponse) => void;

export type StandInLinkedIn = {
  url: string;
  clientId: string;
  clientSecret: string;
  /**
   * A member: its access token (and a refresh token when `partner`), as a connect would get;
   * `scopes` are what LinkedIn granted the app for it (default openid, profile, w_member_social).
   */
  member(opts?: { partner?: boolean; name?: string; scopes?: string[] }): {
    sub: string;
    accessToken: string;
    refreshToken?: string;
  };
  /** An authorization code for the member owning `accessToken` (what the authorize page gives). */
  codeFor(sub: string, redirectUri: string): string;
  /** Makes `token` invalid (expired or revoked): calls with it answer 401. */
  expire(token: string): void;
  /** Lets the member's token post as this organization (w_organization_social, ADMINISTRATOR). */
  administer(sub: string, organization: string): void;
  posts: LinkedInPost[];
  images: Map<string, { owner: string; bytes: number; status: string; polls: number }>;
  /** Each image is processed after this many status reads (default 1). */
  imageProcessingPolls: number;
  /** While false, GET /rest/images/{urn} answers 403 (an app without the read permission). */
  imageReads: boolean;
  /**
   * While false, GET /rest/images/{urn} answers the image's id and owner but no `status` (as
   * some descriptions of the Images API show it); the image is processed when it is posted.
   */
  imageStatusShown: boolean;
  /**
   * `plain`: a URN in a media path is matched as the Images page writes it
   * (`/rest/images/urn:li:image:...`), so a URL-encoded one is not found; `any` decodes it.
   */
  urnPaths: 'any' | 'plain';
  /**
   * Where a created post's URN is given: `headers` (x-restli-id and x-linkedin-id, the
   * default), only one of them, URL-encoded in x-restli-id, or only as `id` in the body.
   */
  postIdIn: 'headers' | 'x-restli-id' | 'x-linkedin-id' | 'encoded' | 'body';
  /** What /v2/userinfo leaves out: `name` (its scope may give only the given and family names), or every name. */
  userinfoOmits: 'nothing' | 'name' | 'names';
  /** The token endpoint's `expires_in` as a numeric string (as some OAuth servers give it). */
  expiresAsString: boolean;
  videos: Map<string, LinkedInVideo>;
  /** POST /rest/posts requests received, whatever they were answered. */
  postRequests: Record<string, unknown>[];
  /** Token endpoint requests, by grant type. */
  tokenRequests: { grant_type: string; refresh_token?: string }[];
  /**
   * The next POST /rest/posts are answered 429: with no headers, as LinkedIn documents, or
   * with these (a Retry-After, as HTTP allows any 429 to carry).
   */
  throttlePosts(times?: number, headers?: Record<string, string>): void;
  /** The next POST /rest/posts answers are these instead (the post is still created first when `create`). */
  overridePosts(answers: Override[], opts?: { create?: boolean }): void;
  /** Called once a post is created, before it is answered; the answer waits for it. */
  onCreated: ((post: LinkedInPost) => Promise<void> | void) | undefined;
  /** Each video is processed after this many status reads (default 2). */
  processingPolls: number;
  /** The next video to be finalized fails processing. */
  failNextVideo(): void;
  /** Bytes per ranged PUT of a video (LinkedIn's are 4 MiB; tests use less to see several). */
  videoPartBytes: number;
  /** Requests that lacked or had a wrong required header, as `METHOD path: what`. */
  headerFaults: string[];
  /** Statistics requests (memberCreatorPostAnalytics, organizationalEntityShareStatistics), as sent. */
  analyticsRequests: string[];
  /** The next statistics answers are these instead. */
  overrideAnalytics(answers: Override[]): void;
  close(): Promise<void>;
};

const DAY = 86_400;

/** The versions LinkedIn serves: monthly, each for about a year (Marketing versioning page). */
function activeVersion(v: string, now = new Date()): boolean {
  const m = /^(\d{4})(\d{2})$/.exec(v);
  if (!m) return false;
  const months = (now.getUTCFullYear() - Number(m[1])) * 12 + now.getUTCMonth() + 1 - Number(m[2]);
  return months >= 0 && months < 12;
}

export async function startStandInLinkedIn(): Promise<StandInLinkedIn> {
  let seq = 7141138937766391808n;
  let n = 0;
  const next = () => String(++n);
  const tokens = new Map<string, { sub: string; expired: boolean }>();
  const refreshTokens = new Map<string, { sub: string; expiresAt: number }>();
  const codes = new Map<string, { sub: string; redirectUri: string }>();
  const members = new Map<
    string,
    { name: string; partner: boolean; orgs: Set<string>; scopes: string[] }
  >();
  let analyticsOverrides: Override[] = [];
  let throttled = 0;
  let throttleHeaders: Record<string, string> = {};
  let overrides: { answers: Override[]; create: boolean } = { answers: [], create: false };
  let failVideo = false;

  const issue = (sub: string) => {
    const accessToken = `AQ-${sub}-${next()}`;
    tokens.set(accessToken, { sub, expired: false });
    return accessToken;
  };

  const state: StandInLinkedIn = {
    url: '',
    clientId: 'li-client-id',
    clientSecret: 'li-client-secret',
    member(opts = {}) {
      const sub = `m${next()}Xy_z-`;
      members.set(sub, {
        name: opts.name ?? 'Ada Lovelace',
        partner: !!opts.partner,
        orgs: new Set(),
        scopes: opts.scopes ?? ['openid', 'profile', 'w_member_social'],
      });
      const accessToken = issue(sub);
      if (!opts.partner) return { sub, accessToken };
      const refreshToken = `AR-${sub}-${next()}`;
      refreshTokens.set(refreshToken, { sub, expiresAt: Date.now() + 365 * DAY * 1000 });
      return { sub, accessToken, refreshToken };
    },
    codeFor(sub, redirectUri) {
      const code = `code-${next()}`;
      codes.set(code, { sub, redirectUri });
      return code;
    },
    expire(token) {
      const t = tokens.get(token);
      if (t) t.expired = true;
    },
    administer(sub, organization) {
      members.get(sub)?.orgs.add(organization);
    },
    posts: [],
    images: new Map(),
    videos: new Map(),
    postRequests: [],
    tokenRequests: [],
    throttlePosts(times = 1, headers = {}) {
      throttled = times;
      throttleHeaders = headers;
    },
    overridePosts(answers, opts = {}) {
      overrides = { answers: [...answers], create: !!opts.create };
    },
    onCreated: undefined,
    processingPolls: 2,
    imageProcessingPolls: 1,
    imageReads: true,
    imageStatusShown: true,
    urnPaths: 'any',
    postIdIn: 'headers',
    expiresAsString: false,
    userinfoOmits: 'nothing',
    failNextVideo() {
      failVideo = true;
    },
    videoPartBytes: 4 * 1024 * 1024,
    headerFaults: [],
    analyticsRequests: [],
    overrideAnalytics(answers) {
      analyticsOverrides = [...answers];
    },
    close: async () => {},
  };

  const send = (res: ServerResponse, status: number, body?: unknown, headers = {}) => {
    if (body === undefined) return res.writeHead(status, headers).end();
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify(body));
  };
  /** LinkedIn's error body: status, a service code where it gives one, and a message. */
  const refuse = (res: ServerResponse, status: number, message: string, extra = {}) =>
    send(res, status, { status, message, ...extra });

  /** The bearer's member, or an answer already sent. */
  const memberOf = (req: IncomingMessage, res: ServerResponse): string | undefined => {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const t = token ? tokens.get(token) : undefined;
    if (!t || t.expired) {
      refuse(res, 401, 'Invalid access token', {
        serviceErrorCode: 65600,
        code: 'INVALID_ACCESS_TOKEN',
      });
      return undefined;
    }
    return t.sub;
  };

  /** The versioned API's headers; answers the refusal LinkedIn gives when one is wrong. */
  const versioned = (req: IncomingMessage, res: ServerResponse, what: string): boolean => {
    const version = req.headers['linkedin-version'];
    const protocol = req.headers['x-restli-protocol-version'];
    if (typeof version !== 'string') {
      state.headerFaults.push(`${what}: no LinkedIn-Version`);
      refuse(
        res,
        400,
        'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
        { code: 'VERSION_MISSING' },
      );
      return false;
    }
    if (!activeVersion(version)) {
      state.headerFaults.push(`${what}: LinkedIn-Version ${version}`);
      refuse(res, 426, `Requested version ${version} is not active`, {
        code: 'NONEXISTENT_VERSION',
      });
      return false;
    }
    if (protocol !== '2.0.0') {
      state.headerFaults.push(`${what}: X-Restli-Protocol-Version ${protocol}`);
      refuse(res, 400, 'Rest.li protocol version 2.0.0 is required for this API.', {
        code: 'ILLEGAL_ARGUMENT',
      });
      return false;
    }
    return true;
  };

  const required = ['author', 'commentary', 'visibility', 'distribution', 'lifecycleState'];
  const missingField = (res: ServerResponse, path: string) =>
    refuse(res, 422, `${path} :: field is required but not found and has no default value`, {
      errorDetailType: 'com.linkedin.common.error.BadRequest',
      errorDetails: {
        inputErrors: [
          {
            description: 'Required field missing',
            input: { inputPath: { fieldPath: path } },
            code: 'FIELD_REQUIRED',
          },
        ],
      },
    });

  /** An uploaded image LinkedIn has processed (at once, when nobody can watch it processing). */
  const imageReady = (urn: string) => {
    const image = state.images.get(urn);
    if (image?.status === 'PROCESSING' && !(state.imageReads && state.imageStatusShown))
      image.status = 'AVAILABLE';
    return image?.status === 'AVAILABLE';
  };

  /** The granted scopes as LinkedIn's token endpoint lists them. */
  const scopeOf = (sub: string) => (members.get(sub)?.scopes ?? []).join(',');
  const analyticsPaths = [
    '/rest/memberCreatorPostAnalytics',
    '/rest/organizationalEntityShareStatistics',
  ];
  const analytics = {
    posts: () => state.posts,
    scopesOf: (sub: string) => new Set(members.get(sub)?.scopes ?? []),
    administers: (sub: string, organization: string) => !!members.get(sub)?.orgs.has(organization),
    send: (res: ServerResponse, status: number, body?: unknown) => send(res, status, body),
    refuse,
  };

  const mayPostAs = (sub: string, author: unknown) =>
    author === `urn:li:person:${sub}` ||
    (typeof author === 'string' && !!members.get(sub)?.orgs.has(author));

  async function createPost(res: ServerResponse, sub: string, body: Record<string, unknown>) {
    state.postRequests.push(body);
    if (throttled > 0) {
      throttled--;
      // Documented: 429 once the day's limit is reached, with no rate-limit headers.
      return send(
        res,
        429,
        {
          status: 429,
          message:
            'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
        },
        throttleHeaders,
      );
    }
    const override = overrides.answers.shift();
    if (override && !overrides.create) return override(res);
    for (const field of required)
      if (body[field] === undefined) return missingField(res, `/${field}`);
    if (!mayPostAs(sub, body.author))
      return refuse(
        res,
        403,
        'Unpermitted fields present in REQUEST_BODY: Data Processing Exception while processing fields [/author]',
        { serviceErrorCode: 100, code: 'ACCESS_DENIED' },
      );
    const content = body.content as Record<string, any> | undefined;
    if (content?.media) {
      const id = String(content.media.id);
      const ready =
        (id.startsWith('urn:li:image:') && imageReady(id)) ||
        (id.startsWith('urn:li:video:') && state.videos.get(id)?.status === 'AVAILABLE');
      if (!ready)
        return refuse(res, 400, `Media ${id} is not available`, { code: 'INVALID_CONTENT' });
    }
    if (content?.multiImage) {
      const images = content.multiImage.images;
      if (!Array.isArray(images) || images.length < 2 || images.length > 20)
        return refuse(
          res,
          422,
          '/content/multiImage/images :: array must have between 2 and 20 items',
        );
      for (const i of images)
        if (!imageReady(String(i?.id)))
          return refuse(res, 400, `Media ${i?.id} is not available`, { code: 'INVALID_CONTENT' });
    }
    const commentary = String(body.commentary);
    const same = state.posts.find((p) => p.author === body.author && p.commentary === commentary);
    if (same)
      return refuse(res, 422, `Unable to create post: Content is a duplicate of ${same.urn}`, {
        errorDetails: {
          inputErrors: [
            { description: 'Duplicate post is detected', input: {}, code: 'DUPLICATE_POST' },
          ],
        },
      });
    const post: LinkedInPost = {
      urn: `urn:li:share:${++seq}`,
      author: String(body.author),
      commentary,
      content,
      body,
    };
    state.posts.push(post);
    await state.onCreated?.(post);
    if (override) return override(res);
    // Documented: 201 Created, no body, the post's URN in x-restli-id.
    const { postIdIn } = state;
    if (postIdIn === 'body') return send(res, 201, { id: post.urn });
    send(res, 201, undefined, {
      ...(['headers', 'x-restli-id'].includes(postIdIn) ? { 'x-restli-id': post.urn } : {}),
      ...(['headers', 'x-linkedin-id'].includes(postIdIn) ? { 'x-linkedin-id': post.urn } : {}),
      ...(postIdIn === 'encoded' ? { 'x-restli-id': encodeURIComponent(post.urn) } : {}),
    });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://loopback');
      const what = `${req.method} ${url.pathname}`;
      const json = () => {
        try {
          return JSON.parse(raw.toString('utf8')) as Record<string, any>;
        } catch {
          return undefined;
        }
      };
      void (async () => {
        // OAuth 2 (www.linkedin.com): no version headers there.
        if (what === 'POST /oauth/v2/accessToken') {
          if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
            return send(res, 400, {
              error: 'invalid_request',
              error_description: 'Content-Type must be application/x-www-form-urlencoded',
            });
          const form = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
          state.tokenRequests.push({
            grant_type: form.grant_type ?? '',
            refresh_token: form.refresh_token,
          });
          if (form.client_id !== state.clientId || form.client_secret !== state.clientSecret)
            return send(res, 401, {
              error: 'invalid_client',
              error_description: 'Client authentication failed',
            });
          if (form.grant_type === 'authorization_code') {
            const code = codes.get(form.code ?? '');
            codes.delete(form.code ?? '');
            if (!code || code.redirectUri !== form.redirect_uri)
              return send(res, 400, {
                error: 'invalid_request',
                error_description:
                  'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or external member binding exists',
              });
            const partner = members.get(code.sub)?.partner;
            const access_token = issue(code.sub);
            if (!partner)
              return send(res, 200, {
                access_token,
                expires_in: state.expiresAsString ? String(60 * DAY) : 60 * DAY,
                scope: scopeOf(code.sub),
              });
            const refresh_token = `AR-${code.sub}-${next()}`;
            refreshTokens.set(refresh_token, {
              sub: code.sub,
              expiresAt: Date.now() + 365 * DAY * 1000,
            });
            return send(res, 200, {
              access_token,
              expires_in: 60 * DAY,
              refresh_token,
              refresh_token_expires_in: 365 * DAY,
              scope: scopeOf(code.sub),
            });
          }
          if (form.grant_type === 'refresh_token') {
            const held = refreshTokens.get(form.refresh_token ?? '');
            if (!held || held.expiresAt <= Date.now())
              return send(res, 400, {
                error: 'invalid_request',
                error_description:
                  'The provided authorization grant or refresh token is invalid, expired or revoked.',
              });
            // A refresh gives a new access token; the refresh token keeps its original expiry.
            return send(res, 200, {
              access_token: issue(held.sub),
              expires_in: 60 * DAY,
              refresh_token: form.refresh_token,
              refresh_token_expires_in: Math.floor((held.expiresAt - Date.now()) / 1000),
              scope: scopeOf(held.sub),
            });
          }
          return send(res, 400, {
            error: 'unsupported_grant_type',
            error_description: 'Unsupported grant type',
          });
        }

        // Upload addresses LinkedIn hands out (the Images and Videos APIs' uploadUrl).
        const imageUpload = /^\/dms-uploads\/image\/(\d+)$/.exec(url.pathname);
        if (req.method === 'PUT' && imageUpload) {
          if (!memberOf(req, res)) return;
          const urn = `urn:li:image:C${imageUpload[1]}`;
          const image = state.images.get(urn);
          if (image?.status !== 'WAITING_UPLOAD')
            return refuse(res, 400, 'Upload URL is not valid');
          Object.assign(image, { bytes: raw.length, status: 'PROCESSING' });
          return send(res, 201);
        }
        const videoUpload = /^\/dms-uploads\/video\/(\d+)\/(\d+)$/.exec(url.pathname);
        if (req.method === 'PUT' && videoUpload) {
          const video = state.videos.get(`urn:li:video:D${videoUpload[1]}`);
          const part = video?.parts[Number(videoUpload[2])];
          if (!video || !part || video.status !== 'WAITING_UPLOAD')
            return refuse(res, 400, 'Upload URL is not valid');
          if (raw.length !== part.lastByte - part.firstByte + 1)
            return refuse(res, 400, 'Part size does not match the upload instruction');
          part.bytes = raw.length;
          part.etag = `/ETag-${videoUpload[1]}-${videoUpload[2]}-${next()}`;
          return send(res, 200, undefined, { etag: part.etag });
        }

        const sub = memberOf(req, res);
        if (!sub) return;
        if (what === 'GET /v2/userinfo') {
          const m = members.get(sub)!;
          const [given, ...family] = m.name.split(' ');
          const omits = state.userinfoOmits;
          return send(res, 200, {
            sub,
            ...(omits === 'nothing' ? { name: m.name } : {}),
            ...(omits === 'names' ? {} : { given_name: given, family_name: family.join(' ') }),
            picture: 'https://media.licdn.com/dms/image/x/profile.jpg',
            locale: { country: 'US', language: 'en' },
          });
        }
        if (!url.pathname.startsWith('/rest/')) return refuse(res, 404, 'Resource not found');
        if (!versioned(req, res, what)) return;
        const body = req.method === 'POST' ? json() : undefined;
        if (req.method === 'POST' && !body) return refuse(res, 400, 'Malformed JSON body');
        const action = url.searchParams.get('action');

        if (what === 'POST /rest/posts') return createPost(res, sub, body!);
        if (analyticsPaths.includes(url.pathname)) {
          state.analyticsRequests.push(req.url ?? '');
          const override = analyticsOverrides.shift();
          if (override) return override(res);
          if (answerAnalytics(analytics, req, res, sub)) return;
        }
        if (what === 'POST /rest/images' && action === 'initializeUpload') {
          const owner = body!.initializeUploadRequest?.owner;
          if (!owner) return missingField(res, '/initializeUploadRequest/owner');
          if (!mayPostAs(sub, owner))
            return refuse(res, 403, 'Not enough permissions to upload as this owner', {
              code: 'ACCESS_DENIED',
            });
          const id = next();
          state.images.set(`urn:li:image:C${id}`, {
            owner,
            bytes: 0,
            status: 'WAITING_UPLOAD',
            polls: 0,
          });
          return send(res, 200, {
            value: {
              uploadUrlExpiresAt: Date.now() + DAY * 1000,
              uploadUrl: `${state.url}/dms-uploads/image/${id}`,
              image: `urn:li:image:C${id}`,
            },
          });
        }
        if (what === 'POST /rest/videos' && action === 'initializeUpload') {
          const r = body!.initializeUploadRequest;
          if (!r?.owner) return missingField(res, '/initializeUploadRequest/owner');
          if (!Number.isInteger(r.fileSizeBytes) || r.fileSizeBytes <= 0)
            return missingField(res, '/initializeUploadRequest/fileSizeBytes');
          if (!mayPostAs(sub, r.owner))
            return refuse(res, 403, 'Not enough permissions to upload as this owner', {
              code: 'ACCESS_DENIED',
            });
          const id = next();
          const urn = `urn:li:video:D${id}`;
          const parts: LinkedInVideo['parts'] = [];
          for (let first = 0; first < r.fileSizeBytes; first += state.videoPartBytes)
            parts.push({
              firstByte: first,
              lastByte: Math.min(first + state.videoPartBytes, r.fileSizeBytes) - 1,
              etag: null,
              bytes: 0,
            });
          state.videos.set(urn, {
            urn,
            owner: r.owner,
            size: r.fileSizeBytes,
            parts,
            status: 'WAITING_UPLOAD',
            processingPolls: state.processingPolls,
            polls: 0,
          });
          return send(res, 200, {
            value: {
              uploadUrlsExpireAt: Date.now() + DAY * 1000,
              video: urn,
              uploadInstructions: parts.map((p, i) => ({
                uploadUrl: `${state.url}/dms-uploads/video/${id}/${i}`,
                firstByte: p.firstByte,
                lastByte: p.lastByte,
              })),
              uploadToken: '',
            },
          });
        }
        if (what === 'POST /rest/videos' && action === 'finalizeUpload') {
          const r = body!.finalizeUploadRequest;
          const video = state.videos.get(String(r?.video));
          if (!video || typeof r.uploadToken !== 'string' || !Array.isArray(r.uploadedPartIds))
            return missingField(res, '/finalizeUploadRequest/uploadedPartIds');
          const etags = video.parts.map((p) => p.etag);
          if (JSON.stringify(etags) !== JSON.stringify(r.uploadedPartIds))
            return refuse(res, 400, 'The uploaded part ids do not match the parts of the upload', {
              code: 'INVALID_UPLOAD',
            });
          video.status = failVideo ? 'PROCESSING_FAILED' : 'PROCESSING';
          failVideo = false;
          return send(res, 200);
        }
        const urnOf = (p: string) => (state.urnPaths === 'plain' ? p : decodeURIComponent(p));
        const imagePath = /^\/rest\/images\/(.+)$/.exec(url.pathname);
        if (req.method === 'GET' && imagePath) {
          const urn = urnOf(imagePath[1]!);
          const image = state.images.get(urn);
          if (!state.imageReads)
            return refuse(res, 403, 'Not enough permissions to access: images.GET.20260501', {
              serviceErrorCode: 100,
              code: 'ACCESS_DENIED',
            });
          if (!image) return refuse(res, 404, 'Image not found');
          if (image.status === 'PROCESSING' && ++image.polls > state.imageProcessingPolls)
            image.status = 'AVAILABLE';
          if (!state.imageStatusShown) return send(res, 200, { id: urn, owner: image.owner });
          return send(res, 200, { id: urn, owner: image.owner, status: image.status });
        }
        const videoPath = /^\/rest\/videos\/(.+)$/.exec(url.pathname);
        if (req.method === 'GET' && videoPath) {
          const video = state.videos.get(urnOf(videoPath[1]!));
          if (!video) return refuse(res, 404, 'Video not found');
          if (video.status === 'PROCESSING' && ++video.polls > video.processingPolls)
            video.status = 'AVAILABLE';
          return send(res, 200, {
            id: video.urn,
            owner: video.owner,
            status: video.status,
            ...(video.status === 'PROCESSING_FAILED'
              ? { processingFailureReason: 'Video is corrupt' }
              : {}),
          });
        }
        refuse(res, 404, 'Resource not found');
      })().catch((err) => {
        if (!res.headersSent) refuse(res, 500, String(err));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}
