// Threads, Instagram and Facebook Pages on loopback as the service sees them through its
// variables alone: the three publishing stand-ins (each on its OAuth stand-in), their authorize
// pages (a person who consents at once, sent back to the given redirect_uri with a code the
// platform's token endpoint accepts and the same state), and the env that points the service
// at them with the operator's Meta apps. The stand-ins fetch media from the addresses the
// service hands them: its own signed ones under PUBLIC_BASE_URL.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { credentialsKey } from '../../../core/connections/credentials.ts';
import { type FacebookStandIn, startFacebookStandIn } from './facebook.ts';
import { type InstagramStandIn, startInstagramStandIn } from './instagram.ts';
import { META_USER } from './metaGraph.ts';
import { META_APP } from './metaOauth.ts';
import { startThreadsStandIn, type ThreadsStandIn } from './threads.ts';

export type MetaStandIns = {
  threads: ThreadsStandIn;
  instagram: InstagramStandIn;
  facebook: FacebookStandIn;
  /** The person the authorize pages consent as (metaOauth.ts's `brand` user). */
  person: { username: string };
  /** THREADS_, INSTAGRAM_ and FACEBOOK_AUTHORIZE_URL. */
  authorizeUrls: Record<'threads' | 'instagram' | 'facebook', string>;
  /** The service's variables: the three platforms' addresses and apps, loopback outbound, a key. */
  env: Record<string, string>;
  /** The key the service seals credentials with (CREDENTIALS_KEY), for a worker beside it. */
  credentialsKey: ReturnType<typeof credentialsKey>;
  close(): Promise<void>;
};

const KEY_B64 = Buffer.alloc(32, 11).toString('base64');

/** Each authorize page's path, as Meta serves them (threads.com, instagram.com, facebook.com). */
const AUTHORIZE_PATHS = {
  threads: '/oauth/authorize',
  instagram: '/oauth/authorize',
  facebook: '/dialog/oauth',
} as const;

/**
 * The stand-ins for a service whose PUBLIC_BASE_URL is `publicBaseUrl`: each platform knows
 * the service's callback as the app's registered redirect URI, as Meta's app settings hold it.
 */
export async function startMetaStandIns(publicBaseUrl: string): Promise<MetaStandIns> {
  const callback = (p: string) => `${publicBaseUrl.replace(/\/+$/, '')}/connect/${p}/callback`;
  const threads = await startThreadsStandIn(callback('threads'));
  const instagram = await startInstagramStandIn(callback('instagram'));
  const facebook = await startFacebookStandIn(callback('facebook'));
  const byPlatform = { threads, instagram, facebook };

  // Meta's authorize dialogs: a GET with client_id, redirect_uri (which must be one the app
  // registered), response_type=code, scope and state, answered (the person consenting) by a
  // redirect to redirect_uri with code and state. Instagram appends `#_` to the redirect.
  const authorize = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://loopback');
    const platform = url.pathname.split('/')[1] as keyof typeof byPlatform;
    const q = url.searchParams;
    const redirect = q.get('redirect_uri');
    if (
      !(platform in byPlatform) ||
      url.pathname !== `/${platform}${AUTHORIZE_PATHS[platform]}` ||
      q.get('response_type') !== 'code' ||
      q.get('client_id') !== META_APP.id ||
      !q.get('scope') ||
      !q.get('state')
    )
      return res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_request');
    if (redirect !== callback(platform))
      return res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end(
          "URL Blocked: This redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.",
        );
    const to = new URL(redirect);
    to.searchParams.set('code', byPlatform[platform].issueCode('brand'));
    to.searchParams.set('state', q.get('state')!);
    if (platform === 'instagram') to.hash = '_';
    res.writeHead(302, { location: to.toString() }).end();
  });
  await new Promise<void>((r) => authorize.listen(0, '127.0.0.1', r));
  const host = `http://127.0.0.1:${(authorize.address() as AddressInfo).port}`;
  const authorizeUrls = {
    threads: `${host}/threads${AUTHORIZE_PATHS.threads}`,
    instagram: `${host}/instagram${AUTHORIZE_PATHS.instagram}`,
    facebook: `${host}/facebook${AUTHORIZE_PATHS.facebook}`,
  };
  return {
    threads,
    instagram,
    facebook,
    person: { username: META_USER.username },
    authorizeUrls,
    env: {
      OUTBOUND_ALLOWLIST: '127.0.0.0/8',
      OUTBOUND_ALLOW_HTTP: 'true',
      CREDENTIALS_KEY: KEY_B64,
      THREADS_CLIENT_ID: META_APP.id,
      THREADS_CLIENT_SECRET: META_APP.secret,
      THREADS_API_URL: threads.url,
      THREADS_AUTHORIZE_URL: authorizeUrls.threads,
      INSTAGRAM_CLIENT_ID: META_APP.id,
      INSTAGRAM_CLIENT_SECRET: META_APP.secret,
      INSTAGRAM_API_URL: instagram.url,
      INSTAGRAM_OAUTH_URL: instagram.url,
      INSTAGRAM_AUTHORIZE_URL: authorizeUrls.instagram,
      FACEBOOK_CLIENT_ID: META_APP.id,
      FACEBOOK_CLIENT_SECRET: META_APP.secret,
      FACEBOOK_API_URL: facebook.url,
      FACEBOOK_VIDEO_URL: facebook.url,
      FACEBOOK_AUTHORIZE_URL: authorizeUrls.facebook,
    },
    credentialsKey: credentialsKey(KEY_B64),
    async close() {
      authorize.closeAllConnections();
      await new Promise<void>((r) => authorize.close(() => r()));
      await threads.close();
      await instagram.close();
      await facebook.close();
    },
  };
}
