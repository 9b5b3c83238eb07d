// The connectors' front door: the built-in connectors registered at start, the account check a
// connection runs when it is made, and Mastodon's reply text rule applied to drafts.

export { builtinConnectors } from './builtin.ts';
export { mastodonReplyText } from './mastodonEngagement.ts';
export { OAUTH_APPS } from './oauth/index.ts';
export { verifyConnection } from './verify.ts';
