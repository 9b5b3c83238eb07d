// Publishing to the Instagram stand-in through the real publication job (publishScheduledPost)
// and the real connection layer (tokens extended through Instagram's OAuthApp under the
// connection's lock, `needs_reconnect` when Instagram refuses): a brand connected with a
// long-lived token of the stand-in's user, a post scheduled through the API, its media served
// by the loopback public media host, and one run of the job at a time.
import { type CredentialsKey, sealCredentials } from '../../../core/connections/credentials.ts';
import type { Connector } from '../../../core/connectors/connector.ts';
import { instagramConnector } from '../../../core/connectors/instagram/index.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { type OAuthPlatform, type PlatformApp, platformApps } from '../../../core/platformApps.ts';
import { publishScheduledPost } from '../../../core/posts/publication.ts';
import { storageFor } from '../../../core/storage/storage.ts';
import { hourAhead } from '../jobs.ts';
import { type PublicMediaHost, startPublicMediaHost } from '../publicMediaHost.ts';
import { call, makeConnectedAccount, type TestServer } from '../server.ts';
import { type InstagramStandIn, startInstagramStandIn } from './instagram.ts';
import { META_APP } from './metaOauth.ts';

/** The professional account the stand-in's `brand` user is (metaOauth.ts's USERS). */
export const IG_USER = { id: '17841400000000001', username: 'brand.studio' };

export type InstagramHarness = {
  ig: InstagramStandIn;
  publicMedia: PublicMediaHost;
  connector: Connector;
  /** Instagram's app as the operator configured it, at the stand-in. */
  apps: Record<OAuthPlatform, PlatformApp>;
  /**
   * A brand connected to the stand-in's user with a long-lived token `ageS` old, stored as
   * expiring in `expiresInS` (60 days by default).
   */
  connectBrand(opts?: {
    ageS?: number;
    expiresInS?: number;
  }): Promise<{ key: string; connectedId: string; token: string }>;
  /** Creates the post through POST /v1/posts, due in an hour; its id and due time. */
  schedule(key: string, body: Record<string, unknown>): Promise<{ id: string; at: string }>;
  /** One run of the publication job as attempt `number` of 5. */
  runJob(post: { id: string; at: string }, number?: number): Promise<string>;
  row(id: string): Promise<Record<string, any>>;
  connection(id: string): Promise<Record<string, any>>;
  close(): Promise<void>;
};

export async function instagramHarness(
  server: TestServer,
  key: CredentialsKey,
): Promise<InstagramHarness> {
  const ig = await startInstagramStandIn(`${server.baseUrl}/connect/instagram/callback`);
  const storage = storageFor(server.config);
  const publicMedia = await startPublicMediaHost(storage);
  const policy = outboundPolicy(server.config);
  const apps = platformApps({
    INSTAGRAM_API_URL: ig.url,
    INSTAGRAM_OAUTH_URL: ig.url,
    INSTAGRAM_CLIENT_ID: META_APP.id,
    INSTAGRAM_CLIENT_SECRET: META_APP.secret,
  });
  const connector = instagramConnector({
    outbound: policy,
    apiUrl: apps.instagram.apiUrl,
    publicMedia,
    requestTimeoutMs: 5_000,
    containerPoll: { intervalMs: 20, boundMs: 2_000 },
  });
  return {
    ig,
    publicMedia,
    connector,
    apps,
    async connectBrand({ ageS = 0, expiresInS = 60 * 86_400 } = {}) {
      const token = ig.longLived('brand', ageS);
      const made = await makeConnectedAccount(server.pool, 'instagram', {
        scopes: ['read', 'publish', 'media'],
        handle: `@${IG_USER.username}`,
        credentials: sealCredentials(key, {
          access_token: token,
          expires_at: new Date(Date.now() + expiresInS * 1000).toISOString(),
          user_id: IG_USER.id,
        }),
      });
      return { key: made.key, connectedId: String(made.connected.id), token };
    },
    async schedule(apiKey, body) {
      const at = hourAhead();
      const res = await call(server, 'POST', '/v1/posts', {
        key: apiKey,
        body: { platform: 'instagram', schedule_at: at, ...body },
      });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id, at };
    },
    runJob: (post, number = 1) =>
      publishScheduledPost(
        server.pool,
        {
          connectors: { instagram: connector },
          credentialsKey: key,
          oauth: { platformApps: apps, outbound: policy },
        },
        { post_id: post.id, scheduled_for: post.at, attempts_before: number - 1 },
        { number, max: 5, signal: new AbortController().signal },
      ),
    async row(id) {
      return (await server.pool.query('select * from posts where id = $1', [id])).rows[0];
    },
    async connection(id) {
      return (await server.pool.query('select * from connected_accounts where id = $1', [id]))
        .rows[0];
    },
    async close() {
      await publicMedia.close();
      await ig.close();
    },
  };
}
