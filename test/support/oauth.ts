// OAuth sign-in as a client and a person do it, over real HTTP: an MCP SDK OAuthClientProvider
// kept in memory, and the person's side (the authorization request, the consent page's data
// and answer with a dashboard session, the provider's redirects) scripted with a cookie jar.
// The client's redirect address is on loopback (a port Chromium may load) and never contacted: the test reads the code
// from the last redirect.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationFull,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { call } from './server.ts';

export const CLIENT_REDIRECT = 'http://127.0.0.1:65530/callback';

/** The MCP SDK's view of a client: what it registered, its tokens, the page it was sent to. */
export class MemoryOAuthClient implements OAuthClientProvider {
  information?: OAuthClientInformationFull;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly name: string;
  readonly redirect: string;
  constructor(name = 'Test MCP client', redirect = CLIENT_REDIRECT) {
    this.name = name;
    this.redirect = redirect;
  }
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(info: OAuthClientInformationFull) {
    this.information = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Cookies as a browser keeps them for one site (paths ignored: every request sends all). */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  constructor(initial?: string) {
    for (const part of initial?.split(/;\s*/) ?? []) this.set(part);
  }
  private set(pair: string) {
    const at = pair.indexOf('=');
    if (at > 0) this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
  }
  take(res: Response) {
    for (const header of res.headers.getSetCookie()) this.set(header.split(';')[0]!);
  }
  get header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export type ConsentAnswer = { allow: boolean; scopes?: string[]; brand_id?: string };

/**
 * A person signed in to the dashboard (`cookie`) opens the client's authorization address,
 * answers the consent page, and follows the redirects back: the client's redirect address
 * with its query (code and state, or error).
 */
export async function consentAs(
  server: { baseUrl: string },
  person: { cookie: string; origin: string },
  authorizationUrl: URL,
  answer: (view: { scopes: { name: string }[]; brand_id: string | null }) => ConsentAnswer,
): Promise<{ redirect: URL; view: any; jar: CookieJar }> {
  const jar = new CookieJar(person.cookie);
  const get = async (url: string) => {
    const res = await fetch(new URL(url, server.baseUrl), {
      redirect: 'manual',
      headers: { cookie: jar.header },
    });
    jar.take(res);
    return res;
  };
  const first = await get(authorizationUrl.toString());
  const consentAt = first.headers.get('location');
  if (!consentAt?.includes('/oauth/consent/'))
    throw new Error(
      `expected the consent page, got ${first.status} ${consentAt} ${await first.text()}`,
    );
  const uid = new URL(consentAt, server.baseUrl).pathname.split('/').at(-1)!;
  const page = await get(consentAt);
  if (page.status !== 200) throw new Error(`the consent page answered ${page.status}`);
  const details = await call(server, 'GET', `/oauth/consent/${uid}/details`, {
    headers: { cookie: jar.header },
  });
  if (details.status !== 200)
    throw new Error(`details: ${details.status} ${JSON.stringify(details.body)}`);
  const csrf = (await call(server, 'GET', '/app/api/session', { headers: { cookie: jar.header } }))
    .body.csrf_token as string;
  const decided = await call(server, 'POST', `/oauth/consent/${uid}/decision`, {
    headers: { cookie: jar.header, origin: person.origin, 'x-csrf-token': csrf },
    body: answer(details.body),
  });
  if (decided.status !== 200)
    throw new Error(`decision: ${decided.status} ${JSON.stringify(decided.body)}`);
  let next = decided.body.redirect_to as string;
  for (let hop = 0; hop < 5; hop++) {
    if (next.startsWith(CLIENT_REDIRECT))
      return { redirect: new URL(next), view: details.body, jar };
    let res = await get(next);
    // The provider's self-submitting form (ending another person's session in this browser,
    // before this one's sign-in goes on): posted as the browser would.
    if (res.status === 200 && res.headers.get('content-type')?.includes('html')) {
      const page = await res.text();
      const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
      if (!action) throw new Error(`no redirect from ${next}: ${page.slice(0, 300)}`);
      const fields = new URLSearchParams(
        [...page.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
      );
      res = await fetch(action, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header, 'content-type': 'application/x-www-form-urlencoded' },
        body: fields,
      });
      jar.take(res);
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`no redirect from ${next}: ${res.status} ${await res.text()}`);
    next = new URL(location, server.baseUrl).toString();
  }
  throw new Error('too many redirects');
}
