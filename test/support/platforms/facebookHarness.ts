// The Facebook stand-in for a test file, the service's variables for it, and the publishing
// harness (publishingHarness.ts) for Facebook Pages: a brand connected to the stand-in's Page
// as the connect flow stores it, published through the real publication job and the
// service's own token layer (an expired Page token refetched with the user token), and a
// worker process on the shipped connectors for the crash tests.
import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { credentialsKey } from '../../../core/connections/credentials.ts';
import { builtinConnectors } from '../../../core/connectors/builtin.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { platformApps } from '../../../core/platformApps.ts';
import { storageFor } from '../../../core/storage/storage.ts';
import type { TestServer } from '../server.ts';
import { useStarted } from '../service.ts';
import { type FacebookStandIn, startFacebookStandIn } from './facebook.ts';
import { META_APP } from './metaOauth.ts';
import { releaseDeadWorkersJob, spawnPublishWorker } from './publishCrash.ts';
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
   * A brand connected to the stand-in's Page. `dashboard`, as the connect flow stores it: the
   * Page's token, the long-lived user token as the refresh token (59 days left), and the Page's
   * id; `cli`, as `connect --config` stores it: the Page's token and id only.
   */
  connectPage(
    how?: 'dashboard' | 'cli',
  ): Promise<ConnectedBrand & { pageToken: string; userToken: string }>;
  /** One run of the publication job where no FACEBOOK_CLIENT_ID names the operator's app. */
  runJobWithoutAppId: PublishingHarness['runJob'];
  /** A worker process on the shipped connectors, Facebook at the stand-in (not yet ready). */
  worker(): ChildProcess;
  /** What the sweeper does for a dead worker: the post is left publishing, its job released. */
  releaseDeadWorker(postId: string): Promise<void>;
};

/**
 * The calling file's FacebookHarness, built once its server and stand-in have started;
 * `keyBase64` is the CREDENTIALS_KEY its connections are sealed with.
 */
export const useFacebookHarness = (
  server: TestServer,
  fb: FacebookStandIn,
  keyBase64: string,
): FacebookHarness => useStarted(async () => facebookHarness(server, fb, keyBase64));

export function facebookHarness(
  server: TestServer,
  fb: FacebookStandIn,
  keyBase64: string,
): FacebookHarness {
  const setup = (env: Record<string, string>) => {
    const app = platformApps(env).facebook;
    const connector = builtinConnectors({
      outbound: outboundPolicy(server.config),
      storage: storageFor(server.config),
      platformApps: { ...server.config.platformApps, facebook: app },
      requestTimeoutMs: 5_000,
    }).facebook!;
    return {
      platform: 'facebook' as const,
      connector,
      credentialsKey: credentialsKey(keyBase64),
      app,
    };
  };
  const { connectBrand, ...harness } = publishingHarness(server, setup(facebookEnv(fb)));
  const { FACEBOOK_CLIENT_ID: _, ...withoutAppId } = facebookEnv(fb);
  const withoutApp = publishingHarness(server, setup(withoutAppId));
  return {
    ...harness,
    async connectPage(how = 'dashboard') {
      const userToken = fb.longLived();
      const pageToken = await fb.pageToken(userToken);
      const brand = await connectBrand({
        handle: 'Brand Studio',
        credentials: {
          access_token: pageToken,
          ...(how === 'dashboard'
            ? {
                refresh_token: userToken,
                refresh_expires_at: new Date(Date.now() + 59 * 86_400_000).toISOString(),
              }
            : {}),
          page_id: FACEBOOK_PAGE,
        },
      });
      return { ...brand, pageToken, userToken };
    },
    runJobWithoutAppId: withoutApp.runJob,
    worker: () => spawnPublishWorker(server, { env: facebookEnv(fb), credentialsKey: keyBase64 }),
    async releaseDeadWorker(postId) {
      expect((await harness.row(postId)).status).toBe('publishing');
      await releaseDeadWorkersJob(server.pool, postId);
    },
  };
}
