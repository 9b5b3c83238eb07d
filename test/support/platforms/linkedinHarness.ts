// The LinkedIn stand-in for a test file, the service's variables for it, and the publishing
// harness (publishingHarness.ts) for LinkedIn: a brand connected to a new member of the
// stand-in, published through the real publication job and the service's own token layer.

import type { CredentialsKey } from '../../../core/connections/credentials.ts';
import { linkedinConnector } from '../../../core/connectors/linkedin/index.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { type PlatformApp, platformApps } from '../../../core/platformApps.ts';
import { storageFor } from '../../../core/storage/storage.ts';
import type { TestServer } from '../server.ts';
import { useStarted } from '../service.ts';
import { type StandInLinkedIn, startStandInLinkedIn } from './linkedin.ts';
import {
  type ConnectedBrand,
  type PublishingHarness,
  type PublishingSetup,
  publishingHarness,
} from './publishingHarness.ts';

/** The LinkedIn stand-in for the calling file, with `settings`, closed after its tests. */
export const useLinkedInStandIn = (settings: Partial<StandInLinkedIn> = {}): StandInLinkedIn =>
  useStarted(
    async () => Object.assign(await startStandInLinkedIn(), settings),
    (started) => started.close(),
  );

/** The service's variables for the stand-in as the operator's LinkedIn app. */
export const linkedinEnv = (li: StandInLinkedIn) => ({
  LINKEDIN_API_URL: li.url,
  LINKEDIN_OAUTH_URL: li.url,
  LINKEDIN_CLIENT_ID: li.clientId,
  LINKEDIN_CLIENT_SECRET: li.clientSecret,
});

/** The stand-in as the operator's LinkedIn app: its addresses and client credentials. */
export const linkedinApp = (li: StandInLinkedIn): PlatformApp =>
  platformApps(linkedinEnv(li)).linkedin;

/** A member of the stand-in as LinkedIn issued it: its id and tokens. */
export type LinkedInMember = ReturnType<StandInLinkedIn['member']>;

export type LinkedInHarness = Omit<PublishingHarness, 'connectBrand'> & {
  /**
   * A brand connected to a new member with a 60-day token (and a partner app's refresh token
   * if `partner`), posting as `organization` if given, and a key (read, publish, media).
   * `granted`: the scopes LinkedIn granted the member; `credentials` adds to what is stored.
   */
  connectMember(opts?: {
    partner?: boolean;
    organization?: string;
    granted?: string[];
    credentials?: Record<string, unknown>;
  }): Promise<ConnectedBrand & { member: LinkedInMember }>;
};

export type LinkedInHarnessOptions = Pick<PublishingSetup, 'oauthApp'> & {
  /** How long one attempt polls an upload's processing, and how often (default 5 s, 20 ms). */
  mediaPoll?: { intervalMs: number; boundMs: number };
};

/** The calling file's LinkedInHarness, built once its server and stand-in have started. */
export const useLinkedInHarness = (
  server: TestServer,
  li: StandInLinkedIn,
  credentialsKey: CredentialsKey,
  opts: LinkedInHarnessOptions = {},
): LinkedInHarness => useStarted(async () => linkedinHarness(server, li, credentialsKey, opts));

export function linkedinHarness(
  server: TestServer,
  li: StandInLinkedIn,
  credentialsKey: CredentialsKey,
  { mediaPoll = { intervalMs: 20, boundMs: 5_000 }, oauthApp }: LinkedInHarnessOptions = {},
): LinkedInHarness {
  const app = linkedinApp(li);
  const connector = linkedinConnector({
    outbound: outboundPolicy(server.config),
    storage: storageFor(server.config),
    apiUrl: app.apiUrl,
    oauthUrl: app.oauthUrl,
    requestTimeoutMs: 5_000,
    mediaPoll,
  });
  const { connectBrand, ...harness } = publishingHarness(server, {
    platform: 'linkedin',
    connector,
    credentialsKey,
    app,
    oauthApp,
  });
  return {
    ...harness,
    async connectMember(opts = {}) {
      const member = li.member({ partner: opts.partner, scopes: opts.granted });
      const brand = await connectBrand({
        handle: 'Ada Lovelace',
        credentials: {
          access_token: member.accessToken,
          ...(member.refreshToken ? { refresh_token: member.refreshToken } : {}),
          expires_at: new Date(Date.now() + 60 * 86_400_000).toISOString(),
          sub: member.sub,
          ...(opts.organization ? { organization: opts.organization } : {}),
          ...opts.credentials,
        },
      });
      return { ...brand, member };
    },
  };
}
