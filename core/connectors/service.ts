// The connectors' front door: the built-in connectors registered at start, the account check a
// connection runs when it is made, each OAuth platform's app (connect, refresh, identity),
// Mastodon's reply text rule applied to drafts, and secrets kept out of a platform's answer.

export { builtinConnectors, type ConnectorDeps } from './builtin.ts';
export { mastodonReplyText } from './mastodonEngagement.ts';
export { type FacebookPage, facebookPages, facebookPageToken } from './oauth/facebook.ts';
export { OAUTH_APPS } from './oauth/index.ts';
export { withoutSecrets } from './secrets.ts';
export { verifyConnection } from './verify.ts';
