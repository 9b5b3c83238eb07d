// OAuth's rules as plain functions (the provider and its HTTP plumbing are in api/oauth/):
// the resource every token is for, the scopes a request names, what each scope allows, and
// when the consent page warns about a client.
import ipaddr from 'ipaddr.js';
import { SCOPES, type Scope } from '../kernel/plans.ts';

/** The resource every token is for: the MCP endpoint, which /v1 and /graphql also accept. */
export const resourceOf = (publicBaseUrl: string) => `${publicBaseUrl}/mcp`;

/** RFC 9728's document for that resource (its path after the well-known prefix). */
export const resourceMetadataOf = (publicBaseUrl: string) =>
  `${publicBaseUrl}/.well-known/oauth-protected-resource/mcp`;

/** Our scopes among a space-separated scope string, once each, in our order. */
export const scopesIn = (scope: unknown): Scope[] => {
  const named = new Set(String(scope ?? '').split(/\s+/));
  return SCOPES.filter((s) => named.has(s));
};

/** What each scope lets a client do, as the consent page says it. */
export const SCOPE_MEANINGS: Record<Scope, string> = {
  read: 'See your posts, media, designs, analytics and usage.',
  publish: 'Create, edit, approve, schedule and publish posts and designs.',
  media: 'Upload and delete media in your library.',
  generate: 'Generate drafts and update brand memory (uses credits).',
  engage: 'Reply to mentions and act on the engagement inbox.',
};

/** A client registered this recently, sending you to another machine, is flagged. */
export const FRESH_CLIENT_S = 3600;

const isThisMachine = (hostname: string) => {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
};

/**
 * The consent page's warning, if any: a client registered within the hour, or one that names
 * itself by a metadata document on another host than it sends you to, sending you to a host
 * that is not this machine.
 */
export function clientWarning(
  c: { clientId: string; issuedAt?: number; redirectUri: string },
  nowS = Date.now() / 1000,
): string | null {
  const redirect = new URL(c.redirectUri);
  if (isThisMachine(redirect.hostname)) return null;
  const documentHost = /^https:\/\//.test(c.clientId) ? new URL(c.clientId).host : undefined;
  if (documentHost !== undefined && documentHost !== redirect.host)
    return `This app describes itself at ${documentHost} but will send you on to ${redirect.host}. Allow it only if you started this sign-in yourself.`;
  if (c.issuedAt !== undefined && nowS - c.issuedAt < FRESH_CLIENT_S)
    return `This app registered itself ${Math.max(1, Math.round((nowS - c.issuedAt) / 60))} minute(s) ago and will send you on to ${redirect.host}. Allow it only if you started this sign-in yourself.`;
  return null;
}

export { ConsentDecision, ConsentView } from './schema.ts';
