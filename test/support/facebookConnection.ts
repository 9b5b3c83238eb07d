// A brand's Facebook connection as the dashboard's connect leaves it (the code traded for a
// long-lived user token, kept as the refresh token, and the first Page's token), against the
// Meta stand-in (platforms/metaOauth.ts), for the tests of the Page choice: the stand-in for a
// test file and the service's variables that make it the operator's Facebook app.

import type { Config } from '../../core/config.ts';
import { connectWithTokens } from '../../core/connections/service.ts';
import { facebookOAuthApp } from '../../core/connectors/oauth/facebook.ts';
import type { Pool } from '../../core/db/pool.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { META_APP, type MetaStandIn, startMetaOauth } from './platforms/metaOauth.ts';
import type { Route } from './platforms/standIn.ts';
import { LOOPBACK_OUTBOUND, useStarted } from './service.ts';

/** The redirect the Meta stand-in binds its codes to, in these tests. */
export const FACEBOOK_REDIRECT = 'https://sps.example/connect/facebook/callback';

/** The Meta stand-in as Facebook for the calling file (`more` answers first), closed after it. */
export const useFacebookMeta = (more?: Route): MetaStandIn =>
  useStarted(
    () => startMetaOauth('facebook', FACEBOOK_REDIRECT, more),
    (started) => started.close(),
  );

/** The service's variables: loopback outbound, and the stand-in as the operator's Facebook app. */
export const facebookMetaEnv = (meta: MetaStandIn) => ({
  ...LOOPBACK_OUTBOUND,
  FACEBOOK_API_URL: meta.url,
  FACEBOOK_CLIENT_ID: META_APP.id,
  FACEBOOK_CLIENT_SECRET: META_APP.secret,
});

export async function connectFacebook(
  server: { pool: Pool; config: Config },
  meta: MetaStandIn,
  acct: { accountId: string; brandId: string },
): Promise<{ id: string; handle: string; tokens: Record<string, unknown> }> {
  const ctx = { app: server.config.platformApps.facebook, policy: outboundPolicy(server.config) };
  const tokens = await facebookOAuthApp.exchangeCode(ctx, {
    code: meta.issueCode(),
    redirectUri: FACEBOOK_REDIRECT,
  });
  const connected = await connectWithTokens(server.pool, server.config, {
    accountId: acct.accountId,
    brandId: acct.brandId,
    platform: 'facebook',
    credentials: tokens,
  });
  return { id: connected.id, handle: connected.handle, tokens };
}
