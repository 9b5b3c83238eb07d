// Stand-ins for Meta's OAuth hosts on loopback, written from Meta's pages (Threads: get access
// tokens and permissions, long-lived tokens, profiles; Instagram Login: business login,
// access_token, refresh_access_token, get started; Facebook Login: manual flow, long-lived
// tokens, Pages). One-use codes bound to the redirect URI; short-lived tokens (1 h) good only
// for the long-lived exchange; long-lived tokens (60 days) extended only once a day old and
// until they expire; Graph errors as `{error: {message, type: "OAuthException", code,
// fbtrace_id}}`. The stand-in's clock moves with `advance`.
import { graphError, META_USER, objectNotFound } from './metaGraph.ts';
import { json, mint, type Received, type Route, type StandIn, startStandIn } from './standIn.ts';

export const META_APP = { id: '1234567890', secret: 'meta-app-secret-0001' };
const LONG_LIVED_S = 5_183_944;
const SHORT_LIVED_S = 3_600;
const DAY_S = 86_400;

type Token = { user: string; kind: 'short' | 'long' | 'page'; issued: number; expires: number };

export type MetaStandIn = StandIn & {
  /** A code the authorize page would redirect with, for `user` (the one it answers as). */
  issueCode(user?: string): string;
  /** A long-lived token issued (as by the exchange) `ageS` seconds ago. */
  longLived(user?: string, ageS?: number): string;
  /** Moves the stand-in's clock forward. */
  advance(seconds: number): void;
  /** Every token of `user` stops working (the user removed the app, changed a password). */
  revoke(user?: string): void;
  /** Facebook: the Pages the user manages, in the order /me/accounts lists them. */
  pages: { id: string; name: string }[];
  tokens: Map<string, Token>;
  /** The user a live token (long- or short-lived) acts as, by the stand-in's clock. */
  userOf(token: string | undefined): { id: string; username: string } | undefined;
};

/** The users each stand-in knows: Threads and Instagram ids are numeric strings. */
const USERS: Record<string, { id: string; username: string; name: string }> = {
  brand: { ...META_USER, name: 'Brand Person' },
  other: { id: '17841400000000002', username: 'someone.else', name: 'Someone Else' },
};

/**
 * `more`: a platform's other routes (its publishing API) on the same host, asked first, as a
 * publishing stand-in composes them with these.
 */
export async function startMetaOauth(
  platform: 'threads' | 'instagram' | 'facebook',
  redirectUri: string,
  more?: Route,
): Promise<MetaStandIn> {
  const { route, helpers } = metaOauthRoutes(platform, redirectUri);
  return { ...(await startStandIn((r) => more?.(r) ?? route(r))), ...helpers };
}

/**
 * The OAuth routes of one of Meta's hosts and the helpers that drive them, for a stand-in that
 * serves more on the same host (Facebook's Pages API beside its OAuth calls).
 */
export function metaOauthRoutes(
  platform: 'threads' | 'instagram' | 'facebook',
  redirectUri: string,
): { route: Route; helpers: Omit<MetaStandIn, keyof StandIn> } {
  let clock = Date.now();
  const codes = new Map<string, string>();
  const tokens = new Map<string, Token>();
  const pages = [
    { id: '101000000000001', name: 'Brand Studio' },
    { id: '101000000000002', name: 'Brand Shop' },
  ];

  const issue = (user: string, kind: Token['kind'], lifetimeS: number, ageS = 0) => {
    const token = mint(kind === 'page' ? 'EAAP' : kind === 'short' ? 'IGQS' : 'IGQL');
    const issued = clock - ageS * 1000;
    tokens.set(token, { user, kind, issued, expires: issued + lifetimeS * 1000 });
    return token;
  };
  const live = (token: string | undefined, kind?: Token['kind']) => {
    const t = token ? tokens.get(token) : undefined;
    return t && t.expires > clock && (!kind || t.kind === kind) ? t : undefined;
  };
  const invalidToken = () =>
    graphError(platform === 'threads' ? 401 : 400, 190, 'Invalid OAuth access token.');

  /** The code exchange: client, redirect and a one-use code, as every Meta host checks them. */
  const codeExchange = (fields: Record<string, string>) => {
    if (fields.client_id !== META_APP.id || fields.client_secret !== META_APP.secret)
      return { error: graphError(400, 101, 'Error validating client secret.') };
    if (fields.redirect_uri !== redirectUri)
      return {
        error: graphError(
          400,
          100,
          'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
        ),
      };
    const user = fields.code ? codes.get(fields.code) : undefined;
    if (!user) return { error: graphError(400, 100, 'Invalid verification code format.') };
    codes.delete(fields.code!);
    return { user };
  };

  const threadsOrInstagram = (r: Received) => {
    const prefix = platform === 'threads' ? 'th' : 'ig';
    if (r.method === 'POST' && r.path === '/oauth/access_token') {
      if (r.form.grant_type !== 'authorization_code')
        return graphError(400, 100, 'Unsupported grant_type');
      const { user, error } = codeExchange(r.form);
      if (!user) return error;
      const access_token = issue(user, 'short', SHORT_LIVED_S);
      // Instagram Login's business-login page documents the `data` list; Threads a flat answer.
      return platform === 'instagram'
        ? json(200, {
            data: [
              {
                access_token,
                user_id: USERS[user]!.id,
                permissions: 'instagram_business_basic,instagram_business_content_publish',
              },
            ],
          })
        : json(200, { access_token, user_id: Number(USERS[user]!.id.slice(0, 15)) });
    }
    if (r.method === 'GET' && r.path === '/access_token') {
      if (r.query.grant_type !== `${prefix}_exchange_token`)
        return graphError(400, 100, 'Unsupported grant_type');
      if (r.query.client_secret !== META_APP.secret)
        return graphError(400, 101, 'Error validating client secret.');
      const t = live(r.query.access_token, 'short');
      if (!t) return invalidToken();
      return json(200, {
        access_token: issue(t.user, 'long', LONG_LIVED_S),
        token_type: 'bearer',
        expires_in: LONG_LIVED_S,
      });
    }
    if (r.method === 'GET' && r.path === '/refresh_access_token') {
      if (r.query.grant_type !== `${prefix}_refresh_token`)
        return graphError(400, 100, 'Unsupported grant_type');
      const t = live(r.query.access_token, 'long');
      if (!t) return invalidToken();
      if (clock - t.issued < DAY_S * 1000)
        return graphError(400, 100, 'Tokens can only be refreshed once they are 24 hours old.');
      return json(200, {
        access_token: issue(t.user, 'long', LONG_LIVED_S),
        token_type: 'bearer',
        expires_in: LONG_LIVED_S,
      });
    }
    const mePath = platform === 'threads' ? '/v1.0/me' : '/v25.0/me';
    if (r.method === 'GET' && r.path === mePath) {
      const t = live(r.query.access_token, 'long') ?? live(r.query.access_token, 'short');
      if (!t) return invalidToken();
      const u = USERS[t.user]!;
      return platform === 'threads'
        ? json(200, { id: u.id, username: u.username })
        : json(200, { user_id: u.id, username: u.username, id: `9${u.id.slice(1)}` });
    }
    return undefined;
  };

  const facebook = (r: Received) => {
    if (r.method !== 'GET' || !r.path.startsWith('/v25.0/')) return undefined;
    const path = r.path.slice('/v25.0'.length);
    if (path === '/oauth/access_token' && r.query.grant_type === 'fb_exchange_token') {
      if (r.query.client_id !== META_APP.id || r.query.client_secret !== META_APP.secret)
        return graphError(400, 101, 'Error validating client secret.');
      const t = live(r.query.fb_exchange_token, 'short') ?? live(r.query.fb_exchange_token, 'long');
      if (!t) return invalidToken();
      return json(200, {
        access_token: issue(t.user, 'long', LONG_LIVED_S),
        token_type: 'bearer',
        expires_in: LONG_LIVED_S,
      });
    }
    if (path === '/oauth/access_token') {
      const { user, error } = codeExchange(r.query);
      if (!user) return error;
      return json(200, {
        access_token: issue(user, 'short', 5_400),
        token_type: 'bearer',
        expires_in: 5_400,
      });
    }
    const userToken = live(r.query.access_token, 'long') ?? live(r.query.access_token, 'short');
    const pageOf = (p: { id: string; name: string }, user: string) => ({
      id: p.id,
      name: p.name,
      category: 'Brand',
      tasks: ['ANALYZE', 'ADVERTISE', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'],
      // A Page token fetched with a long-lived user token does not expire.
      access_token: issue(`${user}|${p.id}`, 'page', 10 * 365 * DAY_S),
    });
    if (path === '/me/accounts') {
      if (!userToken) return invalidToken();
      return json(200, {
        data: userToken.user === 'brand' ? pages.map((p) => pageOf(p, userToken.user)) : [],
        paging: { cursors: { before: 'QVFIUk', after: 'QVFIUl' } },
      });
    }
    if (path === '/me') {
      const page = live(r.query.access_token, 'page');
      if (page) {
        const p = pages.find((x) => x.id === page.user.split('|')[1])!;
        return json(200, { id: p.id, name: p.name });
      }
      if (!userToken) return invalidToken();
      const u = USERS[userToken.user]!;
      return json(200, { id: u.id, name: u.name });
    }
    const pageId = /^\/(\d+)$/.exec(path)?.[1];
    if (pageId) {
      if (!userToken) return invalidToken();
      const p = pages.find((x) => x.id === pageId);
      if (!p || userToken.user !== 'brand') return objectNotFound(pageId, 'GET');
      const { category: _c, tasks: _t, ...page } = pageOf(p, userToken.user);
      return json(200, page);
    }
    return undefined;
  };

  const helpers: Omit<MetaStandIn, keyof StandIn> = {
    pages,
    tokens,
    issueCode(user = 'brand') {
      const code = mint('AQ');
      codes.set(code, user);
      return code;
    },
    longLived: (user = 'brand', ageS = 0) => issue(user, 'long', LONG_LIVED_S, ageS),
    userOf(token) {
      const t = live(token, 'long') ?? live(token, 'short');
      const u = t ? USERS[t.user.split('|')[0]!] : undefined;
      return u ? { id: u.id, username: u.username } : undefined;
    },
    advance(seconds) {
      clock += seconds * 1000;
    },
    revoke(user = 'brand') {
      for (const [token, t] of tokens) if (t.user.split('|')[0] === user) tokens.delete(token);
    },
  };
  return { route: platform === 'facebook' ? facebook : threadsOrInstagram, helpers };
}
