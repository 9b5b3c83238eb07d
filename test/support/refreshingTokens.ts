// A connector given `tokens` the way the connection layer gives them (the stored access token,
// refreshed once through the platform's OAuthApp on a 401 and saved), for tests of a
// connector's refresh on a branch or in a process where the job does not wire them.
import type {
  AccessTokens,
  ConnectedAccountAccess,
  Connector,
} from '../../core/connectors/connector.ts';
import type { OAuthApp, OAuthContext, OAuthTokens } from '../../core/connectors/oauthApp.ts';

function refreshingTokens(
  account: ConnectedAccountAccess,
  app: OAuthApp,
  ctx: OAuthContext,
): AccessTokens {
  let credentials = { ...account.credentials };
  return {
    current: async () => String(credentials.access_token),
    async refused(token) {
      if (credentials.access_token !== token) return String(credentials.access_token);
      const fresh = await app.refresh(ctx, credentials as OAuthTokens);
      credentials = { ...credentials, ...fresh };
      await account.saveCredentials(credentials);
      return fresh.access_token;
    },
  };
}

/** `connector` with every publication's account given refreshing tokens. */
export const withRefreshingTokens = (
  connector: Connector,
  app: OAuthApp,
  ctx: OAuthContext,
): Connector => ({
  ...connector,
  publish: (req) =>
    connector.publish({
      ...req,
      account: { ...req.account, tokens: refreshingTokens(req.account, app, ctx) },
    }),
});
