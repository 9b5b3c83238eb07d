// X and LinkedIn on loopback as the service sees them through its variables alone: the two
// stand-ins, LinkedIn's authorize page (a member who consents at once, sent back to the given
// redirect_uri with a code the stand-in's token endpoint accepts and the same state), and the
// env that points the service at them with the operator's app credentials.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { credentialsKey } from '../../../core/connections/credentials.ts';
import { type StandInLinkedIn, startStandInLinkedIn } from './linkedin.ts';
import { startXStandIn, type XStandIn } from './x.ts';

export type PublishingStandIns = {
  x: XStandIn;
  linkedin: StandInLinkedIn;
  /** The member LinkedIn's authorize page signs in as. */
  member: { sub: string; name: string };
  /** LINKEDIN_AUTHORIZE_URL. */
  linkedinAuthorizeUrl: string;
  /** The service's variables: both platforms' addresses and apps, loopback outbound, a key. */
  env: Record<string, string>;
  /** The key the service seals credentials with (CREDENTIALS_KEY), for a worker beside it. */
  credentialsKey: ReturnType<typeof credentialsKey>;
  close(): Promise<void>;
};

const KEY_B64 = Buffer.alloc(32, 7).toString('base64');

export async function startPublishingStandIns(): Promise<PublishingStandIns> {
  const x = await startXStandIn({ user: { username: 'bakery', name: 'The Bakery' } });
  const linkedin = await startStandInLinkedIn();
  const name = 'Ada Lovelace';
  const { sub } = linkedin.member({ name });
  // LinkedIn's authorization page (authorization-code-flow): a GET with response_type=code,
  // client_id, redirect_uri, state and scope, answered by a redirect with code and state.
  const authorize = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://loopback');
    const q = url.searchParams;
    const redirect = q.get('redirect_uri');
    if (
      url.pathname !== '/oauth/v2/authorization' ||
      q.get('response_type') !== 'code' ||
      q.get('client_id') !== linkedin.clientId ||
      !redirect ||
      !q.get('state')
    )
      return res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_request');
    const to = new URL(redirect);
    to.searchParams.set('code', linkedin.codeFor(sub, redirect));
    to.searchParams.set('state', q.get('state')!);
    res.writeHead(302, { location: to.toString() }).end();
  });
  await new Promise<void>((r) => authorize.listen(0, '127.0.0.1', r));
  const linkedinAuthorizeUrl = `http://127.0.0.1:${(authorize.address() as AddressInfo).port}/oauth/v2/authorization`;
  return {
    x,
    linkedin,
    member: { sub, name },
    linkedinAuthorizeUrl,
    env: {
      OUTBOUND_ALLOWLIST: '127.0.0.0/8',
      OUTBOUND_ALLOW_HTTP: 'true',
      CREDENTIALS_KEY: KEY_B64,
      X_CLIENT_ID: x.clientId,
      X_CLIENT_SECRET: x.clientSecret,
      X_API_URL: x.url,
      X_AUTHORIZE_URL: x.authorizeUrl,
      LINKEDIN_CLIENT_ID: linkedin.clientId,
      LINKEDIN_CLIENT_SECRET: linkedin.clientSecret,
      LINKEDIN_API_URL: linkedin.url,
      LINKEDIN_OAUTH_URL: linkedin.url,
      LINKEDIN_AUTHORIZE_URL: linkedinAuthorizeUrl,
    },
    credentialsKey: credentialsKey(KEY_B64),
    async close() {
      authorize.closeAllConnections();
      await new Promise<void>((r) => authorize.close(() => r()));
      await x.close();
      await linkedin.close();
    },
  };
}
