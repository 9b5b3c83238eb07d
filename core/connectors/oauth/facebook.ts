// Facebook Pages (Graph API): Facebook Login's dialog, the code traded for a user token, at once
// exchanged for a long-lived (60-day) one (fb_exchange_token), and with it the Page token of
// the Page to publish as: the one named by `pageId`, else the first Page the user manages
// (another is chosen later through facebookPages and facebookPageToken, with the kept user token).
// A Page token fetched with a long-lived user token carries no expiry, so nothing is refreshed
// ahead of time; the long-lived user token is kept (sealed) as the connection's refresh token,
// and a refresh (after a 401) fetches the Page's token again with it while it lasts.
// Docs: developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow,
// …/facebook-login/guides/access-tokens/get-long-lived, …/documentation/pages-api/posts.

import { z } from 'zod';
import { PLATFORM_NAMES } from '../../kernel/platformNames.ts';
import { PublicationError } from '../connector.ts';
import { documented } from '../http.ts';
import { GRAPH_VERSION } from '../meta/graph.ts';
import type { OAuthApp, OAuthContext, OAuthTokens } from '../oauthApp.ts';
import {
  accessTokenOf,
  cannotRefresh,
  clientOf,
  expiresAt,
  NumericId,
  Seconds,
  ShownName,
  sameAccount,
  send,
  stored,
  Token,
  tokens,
  withQuery,
} from './grants.ts';

const PLATFORM = PLATFORM_NAMES.facebook;
/**
 * Listing the user's Pages, posting to them (text, photos, videos) and reading their posts'
 * counts and insights.
 */
const SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'read_insights',
  'publish_video',
];

/** GET /oauth/access_token (the code, then fb_exchange_token): a user token. */
const UserToken = z.object({ access_token: Token, expires_in: Seconds.optional() });
/** A Page with the token the user holds for it (GET /{page-id}, GET /me/accounts). */
const Page = z.object({ id: NumericId, name: ShownName, access_token: Token });
/** GET /me/accounts: the user's Pages, first page of the list. */
const Accounts = z.object({ data: z.array(z.unknown()).max(1000) });
/** GET /me?fields=id,name with a Page token: the Page itself. */
const Me = z.object({ id: NumericId, name: ShownName });

const graph = (ctx: OAuthContext, path: string, query: Record<string, string>) =>
  withQuery(`${ctx.app.apiUrl}/${GRAPH_VERSION}${path}`, query);

/** One GET of the Graph API, its 2xx answer read with `schema`. */
async function graphGet<S extends z.ZodType>(
  ctx: OAuthContext,
  path: string,
  query: Record<string, string>,
  schema: S,
  opts: { secrets: (string | undefined)[]; refreshing: boolean },
): Promise<z.output<S>> {
  const res = await send({
    ctx,
    platform: PLATFORM,
    method: 'GET',
    url: graph(ctx, path, query),
    headers: { accept: 'application/json' },
    secrets: opts.secrets,
    reconnectOnRefusal: opts.refreshing,
  });
  return documented(PLATFORM, `GET /${GRAPH_VERSION}${path}`, res, schema);
}

/**
 * The Page token of `pageId`, or of the first Page the user manages when none is named, read
 * with a long-lived user token.
 */
async function pageToken(
  ctx: OAuthContext,
  userToken: string,
  pageId: string | undefined,
  refreshing: boolean,
): Promise<z.output<typeof Page>> {
  const opts = { secrets: [userToken], refreshing };
  if (pageId) {
    if (!/^\d{1,40}$/.test(pageId))
      throw new PublicationError(`${PLATFORM}'s page_id must be the Page's numeric id.`, {
        retryable: false,
      });
    return graphGet(
      ctx,
      `/${pageId}`,
      { fields: 'id,name,access_token', access_token: userToken },
      Page,
      opts,
    );
  }
  const accounts = await graphGet(
    ctx,
    '/me/accounts',
    { fields: 'id,name,access_token', access_token: userToken },
    Accounts,
    opts,
  );
  const first = accounts.data.map((p) => Page.safeParse(p)).find((p) => p.success);
  if (!first?.success)
    throw new PublicationError(
      `${PLATFORM} lists no Page this user manages (with its token): add the user to a Page, ` +
        'or grant the app access to one, and connect again.',
      { retryable: false, reconnect: refreshing },
    );
  return first.data;
}

/** A Page as the Page choice lists it: its id and name, never its token. */
export type FacebookPage = { id: string; name: string };

/** A Page as /me/accounts lists it when asked for `id,name` only. */
const ListedPage = z.object({ id: NumericId, name: ShownName });

/**
 * The Pages the user manages (the first 100 /me/accounts lists), read with their long-lived
 * user token; entries without an id or a name are left out. Tokens are not asked for.
 * A refused user token asks for a reconnect (`reconnect`).
 */
export async function facebookPages(ctx: OAuthContext, userToken: string): Promise<FacebookPage[]> {
  const accounts = await graphGet(
    ctx,
    '/me/accounts',
    { fields: 'id,name', limit: '100', access_token: userToken },
    Accounts,
    { secrets: [userToken], refreshing: true },
  );
  const pages = new Map<string, FacebookPage>();
  for (const entry of accounts.data) {
    const page = ListedPage.safeParse(entry);
    if (page.success && !pages.has(page.data.id)) pages.set(page.data.id, page.data);
  }
  return [...pages.values()];
}

/**
 * The Page token of `pageId` (with its id and name), read with the user's long-lived token,
 * as the connect reads it. A refused user token asks for a reconnect (`reconnect`).
 */
export function facebookPageToken(
  ctx: OAuthContext,
  userToken: string,
  pageId: string,
): Promise<{ id: string; name: string; access_token: string }> {
  return pageToken(ctx, userToken, pageId, true);
}

export const facebookOAuthApp: OAuthApp = {
  platform: 'facebook',
  scopes: SCOPES,
  // Facebook Login's manual flow takes no PKCE challenge for a web app with its secret.
  pkce: false,

  authorizeUrl(app, flow) {
    return withQuery(app.authorizeUrl, {
      client_id: app.clientId ?? '',
      redirect_uri: flow.redirectUri,
      state: flow.state,
      response_type: 'code',
      scope: SCOPES.join(','),
    });
  },

  /** `pageId` (the credentials' `page_id`, when the connect flow has one) names the Page. */
  async exchangeCode(ctx, flow: { code: string; redirectUri: string; pageId?: string }) {
    const client = clientOf(ctx, PLATFORM);
    const short = await graphGet(
      ctx,
      '/oauth/access_token',
      {
        client_id: client.id,
        redirect_uri: flow.redirectUri,
        client_secret: client.secret,
        code: flow.code,
      },
      UserToken,
      { secrets: [client.secret, flow.code], refreshing: false },
    );
    const user = await graphGet(
      ctx,
      '/oauth/access_token',
      {
        grant_type: 'fb_exchange_token',
        client_id: client.id,
        client_secret: client.secret,
        fb_exchange_token: short.access_token,
      },
      UserToken,
      { secrets: [client.secret, short.access_token], refreshing: false },
    );
    const page = await pageToken(ctx, user.access_token, flow.pageId, false);
    const result: OAuthTokens & { page_id: string } = {
      // The Page token, with no expiry: fetched with a long-lived user token.
      ...tokens({
        access_token: page.access_token,
        refresh_token: user.access_token,
        refresh_expires_at: expiresAt(user.expires_in),
      }),
      page_id: page.id,
    };
    return result;
  },

  async refresh(ctx, current) {
    const userToken = current.refresh_token;
    if (!userToken)
      throw cannotRefresh(PLATFORM, 'a Page token given by hand has no user token to renew it');
    if (current.refresh_expires_at && Date.parse(current.refresh_expires_at) <= Date.now())
      throw cannotRefresh(PLATFORM, 'the long-lived user token that renews the Page token expired');
    const page = await pageToken(ctx, userToken, stored(current, 'page_id'), true);
    return tokens({
      access_token: page.access_token,
      refresh_token: userToken,
      refresh_expires_at: current.refresh_expires_at,
    });
  },

  async identify(ctx, credentials) {
    const token = accessTokenOf(credentials, PLATFORM);
    const me = await graphGet(ctx, '/me', { fields: 'id,name', access_token: token }, Me, {
      secrets: [token],
      refreshing: false,
    });
    // With a Page token, /me is the Page: a user's token would name the user instead.
    sameAccount(PLATFORM, 'page_id', credentials, me.id);
    return { handle: me.name, fields: { page_id: me.id } };
  },
};
