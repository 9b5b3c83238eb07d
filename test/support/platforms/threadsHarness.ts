// The Threads stand-in for a test file, the service's variables for it, and the publishing
// harness (publishingHarness.ts) for Threads: a brand connected with a long-lived token of the
// stand-in's user, published through the real publication job and the service's own token
// layer (refreshing through Threads' OAuthApp).
import type { CredentialsKey } from '../../../core/connections/credentials.ts';
import type { PublicMedia } from '../../../core/connectors/connector.ts';
import { threadsConnector } from '../../../core/connectors/threads/index.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import type { PlatformApp } from '../../../core/platformApps.ts';
import type { TestServer } from '../server.ts';
import { useStarted } from '../service.ts';
import { META_USER } from './metaGraph.ts';
import { META_APP } from './metaOauth.ts';
import {
  type ConnectedBrand,
  type PublishingHarness,
  publishingHarness,
} from './publishingHarness.ts';
import { oauthContext } from './standIn.ts';
import { startThreadsStandIn, type ThreadsStandIn } from './threads.ts';

/** The Threads stand-in for the calling file, with `settings`, closed after its tests. */
export const useThreadsStandIn = (settings: Partial<ThreadsStandIn> = {}): ThreadsStandIn =>
  useStarted(
    async () => Object.assign(await startThreadsStandIn(), settings),
    (started) => started.close(),
  );

/** The service's variables for the stand-in: where a worker process finds Threads. */
export const threadsEnv = (t: ThreadsStandIn) => ({ THREADS_API_URL: t.url });

/** The stand-in as the operator's Threads app: its address and Meta's app credentials. */
export const threadsApp = (t: ThreadsStandIn): PlatformApp =>
  oauthContext('threads', t.url, META_APP).app;

export type ThreadsHarness = Omit<PublishingHarness, 'connectBrand'> & {
  /**
   * A brand connected to the stand-in's user with a long-lived token `ageS` old (two days by
   * default), stored as expiring in `expiresInS` (what is left of its 60 days by default).
   */
  connectBrand(opts?: {
    ageS?: number;
    expiresInS?: number;
  }): Promise<ConnectedBrand & { token: string }>;
};

export type ThreadsHarnessOptions = {
  /** Where the connector's media addresses come from (none: text only). */
  publicMedia?: PublicMedia;
  /** How long one attempt polls a container's processing (default 3 s). */
  pollBoundMs?: number;
};

/** The calling file's ThreadsHarness, built once its server and stand-in have started. */
export const useThreadsHarness = (
  server: TestServer,
  t: ThreadsStandIn,
  credentialsKey: CredentialsKey,
  opts: ThreadsHarnessOptions = {},
): ThreadsHarness => useStarted(async () => threadsHarness(server, t, credentialsKey, opts));

export function threadsHarness(
  server: TestServer,
  t: ThreadsStandIn,
  credentialsKey: CredentialsKey,
  opts: ThreadsHarnessOptions = {},
): ThreadsHarness {
  const connector = threadsConnector({
    outbound: outboundPolicy(server.config),
    apiUrl: t.url,
    publicMedia: opts.publicMedia,
    requestTimeoutMs: 5_000,
    containerPoll: { intervalMs: 20, boundMs: opts.pollBoundMs ?? 3_000 },
  });
  const { connectBrand, ...harness } = publishingHarness(server, {
    platform: 'threads',
    connector,
    credentialsKey,
    app: threadsApp(t),
  });
  return {
    ...harness,
    async connectBrand({ ageS = 2 * 86_400, expiresInS } = {}) {
      const token = t.longLived('brand', ageS);
      const expires = expiresInS ?? 5_183_944 - ageS;
      const brand = await connectBrand({
        handle: `@${META_USER.username}`,
        credentials: {
          access_token: token,
          expires_at: new Date(Date.now() + expires * 1000).toISOString(),
          user_id: META_USER.id,
        },
      });
      return { ...brand, token };
    },
  };
}
