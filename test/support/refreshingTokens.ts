// A connector given `tokens` much as the connection layer gives them (the stored access token,
// refreshed once through the platform's OAuthApp on a 401 and saved), without its lock or its
// needs_reconnect: for tests that call a connector directly rather than through the publication
// job (which wires the shipped withAccessTokens). The token layer's own tests run the real one.
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
