// Calling LinkedIn's versioned REST API as one connected account: every call carries the
// member's bearer token, the one LinkedIn-Version this service is written against and the
// Rest.li 2.0.0 protocol header; a 401 refreshes the token once; LinkedIn's refusals become
// publication errors quoting its `message`. Docs: learn.microsoft.com/linkedin/marketing
// (versioning, "Posts API", rate limits).

import type { OutboundPolicy } from '../../outbound/guard.ts';
import type { AccessTokens, ConnectedAccountAccess } from '../connector.ts';
import { PublicationError } from '../connector.ts';
import {
  fieldOf,
  nextMidnightUtc,
  type PlatformRequest,
  type PlatformResponse,
  platformRequest,
  refusal,
} from '../http.ts';

/**
 * The API version (YYYYMM) the connector's requests and its reading of the answers follow.
 * LinkedIn sunsets a version about a year after it ships and then answers 426: moving this
 * one constant forward (and checking the Posts, Images and Videos pages of the new version)
 * is the whole of an upgrade.
 */
export const LINKEDIN_VERSION = '202605';

/** The headers LinkedIn's versioned API requires on every call, beside the bearer token. */
export const VERSION_HEADERS = {
  'linkedin-version': LINKEDIN_VERSION,
  'x-restli-protocol-version': '2.0.0',
} as const;

export const PLATFORM = 'LinkedIn';

/** LinkedIn's own reason in an error answer (`message`, or OAuth's `error_description`). */
export const reasonOf = (res: PlatformResponse) =>
  fieldOf(res, 'message') ??
  fieldOf(res, 'error_description') ??
  fieldOf(res, 'error') ??
  'no reason given';

/**
 * The failure for a non-2xx answer. LinkedIn documents no header on a 429: its limits are
 * daily and reset at midnight UTC, so the next attempt waits until then, unless the 429 does
 * carry a Retry-After (HTTP's own way to say it), which is honoured. A 401 asks
 * for a reconnect (the caller has already refreshed once).
 */
export function linkedinRefusal(res: PlatformResponse): PublicationError {
  return refusal(PLATFORM, res, reasonOf(res), {
    reconnect: res.status === 401,
    resetWhenUnsaid: nextMidnightUtc,
  });
}

/** Tokens for an account the connection layer gave none: the stored access token, as it is. */
function storedTokens(access: ConnectedAccountAccess): AccessTokens {
  const token = access.credentials.access_token;
  return {
    async current() {
      if (typeof token !== 'string' || !token)
        throw new PublicationError('The LinkedIn account has no access token; reconnect it.', {
          retryable: false,
          reconnect: true,
        });
      return token;
    },
    async refused() {
      throw new PublicationError('LinkedIn refused the access token; reconnect the account.', {
        retryable: false,
        reconnect: true,
      });
    },
  };
}

export type LinkedInCall = (
  url: string,
  init: Omit<PlatformRequest, 'timeoutMs'> & {
    timeoutMs?: number;
    /** Refusals the caller reads itself (POST /rest/posts: 422, for DUPLICATE_POST). */
    answer?: number[];
  },
) => Promise<PlatformResponse>;

/**
 * Calls as `access` (a path under `apiUrl`, or a full address LinkedIn gave, such as an upload
 * URL); answers 2xx responses and throws the rest. The bearer token goes only to the API's and
 * the OAuth host's (where LinkedIn's upload addresses are) and LinkedIn's own hosts, never to
 * an address an answer named elsewhere.
 */
export function linkedinClient(
  policy: OutboundPolicy,
  hosts: { apiUrl: string; oauthUrl?: string },
  access: ConnectedAccountAccess,
  timeoutMs: number,
): LinkedInCall {
  const { apiUrl } = hosts;
  const tokens = access.tokens ?? storedTokens(access);
  const own = new Set([apiUrl, hosts.oauthUrl ?? apiUrl].map((u) => new URL(u).host));
  const trusted = (url: URL) =>
    own.has(url.host) || url.hostname === 'linkedin.com' || url.hostname.endsWith('.linkedin.com');
  const send = (
    url: string,
    { answer: _, ...init }: Parameters<LinkedInCall>[1],
    token: string | undefined,
  ) =>
    platformRequest(policy, PLATFORM, url, {
      ...init,
      headers: {
        ...VERSION_HEADERS,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...init.headers,
      },
      timeoutMs: init.timeoutMs ?? timeoutMs,
    });
  return async (path, init) => {
    const url = path.startsWith('/') ? `${apiUrl}${path}` : path;
    const bearer = URL.canParse(url) && trusted(new URL(url));
    const token = bearer ? await tokens.current() : undefined;
    let res = await send(url, init, token);
    if (res.status === 401 && token) res = await send(url, init, await tokens.refused(token));
    if ((res.status >= 200 && res.status < 300) || init.answer?.includes(res.status)) return res;
    throw linkedinRefusal(res);
  };
}
