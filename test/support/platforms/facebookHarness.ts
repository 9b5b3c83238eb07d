// The Facebook stand-in for a test file, the service's variables for it, and the publishing
// harness (publishingHarness.ts) for Facebook Pages: a brand connected to the stand-in's Page
// as the connect flow stores it, published through the real publication job and the
// service's own token layer (an expired Page token refetched with the user token).
import type { CredentialsKey } from '../../../core/connections/credentials.ts';
import { builtinConnectors } from '../../../core/connectors/builtin.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { platformApps } from '../../../core/platformApps.ts';
import { storageFor } from '../../../core/storage/storage.ts';
import type { TestServer } from '../server.ts';
import { useStarted } from '../service.ts';
import { type FacebookStandIn, startFacebookStandIn } from './facebook.ts';
import { META_APP } from './metaOauth.ts';
import {
  type ConnectedBrand,
  type PublishingHarness,
  publishingHarness,
} from './publishingHarness.ts';

/** The stand-in's first Page, the one a connection posts as. */
export const FACEBOOK_PAGE = '101000000000001';

/** The Facebook stand-in for the calling file, closed after its tests. */
export const useFacebookStandIn = (): FacebookStandIn =>
  useStarted(
    () => startFacebookStandIn(),
    (started) => started.close(),
  );

/**
 * The service's variables for the stand-in: Graph API and video uploads at it, and the app's
 * id (the Resumable Upload API's sessions are the app's).
 */
export const facebookEnv = (fb: FacebookStandIn) => ({
  FACEBOOK_API_URL: fb.url,
  FACEBOOK_VIDEO_URL: fb.url,
  FACEBOOK_CLIENT_ID: META_APP.id,
});

export type FacebookHarness = Omit<PublishingHarness, 'connectBrand'> & {
  /**
   * A brand connected to the stand-in's Page as the connect flow stores it: the Page's token,
   * the long-lived user token as the refresh token (59 days left), and the Page's id.
   */
  connectPage(): Promise<ConnectedBrand & { pageToken: string; userToken: string }>;
};

/** The calling file's FacebookHarness, built once its server and stand-in have started. */
export const useFacebookHarness = (
  server: TestServer,
  fb: FacebookStandIn,
  credentialsKey: CredentialsKey,
): FacebookHarness => useStarted(async () => facebookHarness(server, fb, credentialsKey));

export function facebookHarness(
  server: TestServer,
  fb: FacebookStandIn,
  credentialsKey: CredentialsKey,
): FacebookHarness {
  const app = platformApps(facebookEnv(fb)).facebook;
  const connector = builtinConnectors({
    outbound: outboundPolicy(server.config),
    storage: storageFor(server.config),
    platformApps: { ...server.config.platformApps, facebook: app },
    requestTimeoutMs: 5_000,
  }).facebook!;
  const { connectBrand, ...harness } = publishingHarness(server, {
    platform: 'facebook',
    connector,
    credentialsKey,
    app,
  });
  return {
    ...harness,
    async connectPage() {
      const userToken = fb.longLived();
      const pageToken = await fb.pageToken(userToken);
      const brand = await connectBrand({
        handle: 'Brand Studio',
        credentials: {
          access_token: pageToken,
          refresh_token: userToken,
          refresh_expires_at: new Date(Date.now() + 59 * 86_400_000).toISOString(),
          page_id: FACEBOOK_PAGE,
        },
      });
      return { ...brand, pageToken, userToken };
    },
  };
}
