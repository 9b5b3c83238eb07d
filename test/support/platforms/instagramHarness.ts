// The Instagram stand-in for a test file, the service's variables for it, and the publishing
// harness (publishingHarness.ts) for Instagram: a brand connected with a long-lived token of
// the stand-in's user, its media served by the loopback public media host, published through
// the real publication job and the service's own token layer (tokens extended through
// Instagram's OAuthApp under the connection's lock, `needs_reconnect` when Instagram refuses).
import type { CredentialsKey } from '../../../core/connections/credentials.ts';
import { instagramConnector } from '../../../core/connectors/instagram/index.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { platformApps } from '../../../core/platformApps.ts';
import { storageFor } from '../../../core/storage/storage.ts';
import { type PublicMediaHost, startPublicMediaHost } from '../publicMediaHost.ts';
import type { TestServer } from '../server.ts';
import { useStarted } from '../service.ts';
import { type InstagramStandIn, startInstagramStandIn } from './instagram.ts';
import { META_USER } from './metaGraph.ts';
import { META_APP } from './metaOauth.ts';
import {
  type ConnectedBrand,
  type PublishingHarness,
  publishingHarness,
} from './publishingHarness.ts';

/** The service's variables for the stand-in as the operator's Instagram app. */
export const instagramEnv = (ig: InstagramStandIn) => ({
  INSTAGRAM_API_URL: ig.url,
  INSTAGRAM_OAUTH_URL: ig.url,
  INSTAGRAM_CLIENT_ID: META_APP.id,
  INSTAGRAM_CLIENT_SECRET: META_APP.secret,
});

export type InstagramHarness = Omit<PublishingHarness, 'connectBrand'> & {
  ig: InstagramStandIn;
  publicMedia: PublicMediaHost;
  /**
   * A brand connected to the stand-in's user with a long-lived token `ageS` old, stored as
   * expiring in `expiresInS` (60 days by default).
   */
  connectBrand(opts?: {
    ageS?: number;
    expiresInS?: number;
  }): Promise<ConnectedBrand & { token: string }>;
  /** Closes the stand-in and the public media host. */
  close(): Promise<void>;
};

/**
 * The calling file's InstagramHarness, with its stand-in (given `standIn` settings) and public
 * media host, started once its server has and closed after its tests.
 */
export const useInstagramHarness = (
  server: TestServer,
  credentialsKey: CredentialsKey,
  standIn: Partial<InstagramStandIn> = {},
): InstagramHarness =>
  useStarted(
    async () => {
      const h = await instagramHarness(server, credentialsKey);
      Object.assign(h.ig, standIn);
      return h;
    },
    (started) => started.close(),
  );

export async function instagramHarness(
  server: TestServer,
  credentialsKey: CredentialsKey,
): Promise<InstagramHarness> {
  const ig = await startInstagramStandIn(`${server.baseUrl}/connect/instagram/callback`);
  const publicMedia = await startPublicMediaHost(storageFor(server.config));
  const app = platformApps(instagramEnv(ig)).instagram;
  const connector = instagramConnector({
    outbound: outboundPolicy(server.config),
    apiUrl: app.apiUrl,
    publicMedia,
    requestTimeoutMs: 5_000,
    containerPoll: { intervalMs: 20, boundMs: 2_000 },
  });
  const { connectBrand, ...harness } = publishingHarness(server, {
    platform: 'instagram',
    connector,
    credentialsKey,
    app,
  });
  return {
    ...harness,
    ig,
    publicMedia,
    async connectBrand({ ageS = 0, expiresInS = 60 * 86_400 } = {}) {
      const token = ig.longLived('brand', ageS);
      const brand = await connectBrand({
        handle: `@${META_USER.username}`,
        credentials: {
          access_token: token,
          expires_at: new Date(Date.now() + expiresInS * 1000).toISOString(),
          user_id: META_USER.id,
        },
      });
      return { ...brand, token };
    },
    async close() {
      await publicMedia.close();
      await ig.close();
    },
  };
}
