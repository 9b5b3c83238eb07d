// Publishing to the X stand-in through the real publication job (publishScheduledPost) on a
// test server's Postgres: a brand connected with the stand-in's tokens, a post scheduled
// through the API, and one run of the job at a time, so a test decides when an attempt ends
// and the next begins.

import { afterEach, expect } from 'vitest';
import { type CredentialsKey, sealCredentials } from '../../../core/connections/credentials.ts';
import { builtinConnectors } from '../../../core/connectors/builtin.ts';
import type { AccessTokens, Connector } from '../../../core/connectors/connector.ts';
import { xOAuthApp } from '../../../core/connectors/oauth/x.ts';
import type { OAuthTokens } from '../../../core/connectors/oauthApp.ts';
import { type OutboundPolicy, outboundPolicy } from '../../../core/outbound/guard.ts';
import { type PlatformApp, platformApps } from '../../../core/platformApps.ts';
import { publishScheduledPost } from '../../../core/posts/publication.ts';
import { storageFor } from '../../../core/storage/storage.ts';
import { hourAhead } from '../jobs.ts';
import { call, makeConnectedAccount, type TestServer } from '../server.ts';
import { useStarted } from '../service.ts';
import { startXStandIn, type XStandIn } from './x.ts';

/**
 * The X stand-in for the calling file, started before its tests and closed after them. After
 * each test, whatever the test sent must have fit X's published schemas (`checkSchemas:
 * false` for a file that sends what does not on purpose).
 */
export function useXStandIn(
  opts: Parameters<typeof startXStandIn>[0] & { checkSchemas?: boolean } = {},
): XStandIn {
  const { checkSchemas = true, ...standIn } = opts;
  const x = useStarted(
    () => startXStandIn(standIn),
    (started) => started.close(),
  );
  if (checkSchemas) afterEach(() => expect(x.schemaViolations).toEqual([]));
  return x;
}

/** The service's variables for the stand-in as the operator's X app. */
export const xEnv = (x: XStandIn) => ({
  X_API_URL: x.url,
  X_AUTHORIZE_URL: x.authorizeUrl,
  X_CLIENT_ID: x.clientId,
  X_CLIENT_SECRET: x.clientSecret,
});

/** The stand-in as the operator's X app: its addresses and client credentials. */
export function standInApp(x: XStandIn): PlatformApp {
  const app = platformApps({ X_API_URL: x.url, X_AUTHORIZE_URL: x.authorizeUrl }).x;
  return { ...app, clientId: x.clientId, clientSecret: x.clientSecret };
}

/**
 * The access tokens a connection layer hands a connector, reduced to what a test needs: the
 * stored token, and on a 401 one refresh through X's OAuthApp, stored with the rotated
 * refresh token (the connection layer's lock and its `needs_reconnect` are its own tests').
 */
export function refreshingTokens(
  account: {
    credentials: Record<string, unknown>;
    saveCredentials(next: Record<string, unknown>): Promise<void>;
  },
  app: PlatformApp,
  policy: OutboundPolicy,
): AccessTokens {
  let creds = account.credentials as OAuthTokens & Record<string, unknown>;
  return {
    current: async () => creds.access_token,
    async refused(token) {
      if (token !== creds.access_token) return creds.access_token;
      creds = { ...creds, ...(await xOAuthApp.refresh({ app, policy }, creds)) };
      await account.saveCredentials(creds);
      return creds.access_token;
    },
  };
}

export type XHarness = {
  connector: Connector;
  /** A brand connected to the stand-in's user, with a key (read, publish, media). */
  connectBrand(): Promise<{ key: string; accountId: string; connectedId: string }>;
  /** Creates the post through POST /v1/posts, due in an hour; its id and due time. */
  schedule(key: string, body: Record<string, unknown>): Promise<{ id: string; at: string }>;
  /** One run of the publication job as attempt `number` of 5. */
  runJob(post: { id: string; at: string }, number?: number): Promise<string>;
  /** The post's row. */
  row(id: string): Promise<Record<string, any>>;
};

/** How the harness hands a connection's tokens to the connector (default: refreshingTokens). */
export type TokensFor = typeof refreshingTokens;

/** The calling file's XHarness, built once its server and stand-in have started. */
export const useXHarness = (
  server: TestServer,
  x: XStandIn,
  credentialsKey: CredentialsKey,
  tokensFor?: TokensFor,
): XHarness => useStarted(async () => xHarness(server, x, credentialsKey, tokensFor));

export function xHarness(
  server: TestServer,
  x: XStandIn,
  credentialsKey: CredentialsKey,
  tokensFor: TokensFor = refreshingTokens,
): XHarness {
  const policy = outboundPolicy(server.config);
  const app = standInApp(x);
  const built = builtinConnectors({
    outbound: policy,
    storage: storageFor(server.config),
    platformApps: { ...platformApps({}), x: app },
    requestTimeoutMs: 2_000,
  }).x!;
  const connector: Connector = {
    ...built,
    publish: (req) =>
      built.publish({
        ...req,
        account: { ...req.account, tokens: tokensFor(req.account, app, policy) },
      }),
  };
  return {
    connector,
    async connectBrand() {
      const tokens = x.issueTokens();
      const {
        acct,
        key: apiKey,
        connected,
      } = await makeConnectedAccount(server.pool, 'x', {
        scopes: ['read', 'publish', 'media'],
        handle: `@${x.user.username}`,
        credentials: sealCredentials(credentialsKey, {
          ...tokens,
          user_id: x.user.id,
          username: x.user.username,
        }),
      });
      return { key: apiKey, accountId: acct.accountId, connectedId: String(connected.id) };
    },
    async schedule(apiKey, body) {
      const at = hourAhead();
      const res = await call(server, 'POST', '/v1/posts', {
        key: apiKey,
        body: { platform: 'x', schedule_at: at, ...body },
      });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id, at };
    },
    runJob: (post, number = 1) =>
      publishScheduledPost(
        server.pool,
        { connectors: { x: connector }, credentialsKey },
        { post_id: post.id, scheduled_for: post.at, attempts_before: number - 1 },
        { number, max: 5, signal: new AbortController().signal },
      ),
    async row(id) {
      return (await server.pool.query('select * from posts where id = $1', [id])).rows[0];
    },
  };
}
