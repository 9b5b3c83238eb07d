// The X stand-in for a test file, the service's variables for it, and the publishing harness
// (publishingHarness.ts) for X: a brand connected with tokens the stand-in issued, published
// through the real publication job and the service's own token layer.

import { afterEach, expect } from 'vitest';
import type { CredentialsKey } from '../../../core/connections/credentials.ts';
import { builtinConnectors } from '../../../core/connectors/builtin.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { type PlatformApp, platformApps } from '../../../core/platformApps.ts';
import { storageFor } from '../../../core/storage/storage.ts';
import type { TestServer } from '../server.ts';
import { useStarted } from '../service.ts';
import {
  type ConnectedBrand,
  type PublishingHarness,
  type PublishingSetup,
  publishingHarness,
} from './publishingHarness.ts';
import { startXStandIn, type XStandIn } from './x.ts';

/**
 * The X stand-in for the calling file, started before its tests and closed after them. After
 * each test, whatever the test sent must have fit X's published schemas (`checkSchemas:
 * false` for a file that sends what does not on purpose).
 */
export function useXStandIn(
  opts: Parameters<typeof startXStandIn>[0] & { checkSchemas?: boolean } = {},
): XStandIn {
  const { checkSchemas = true, ...standIn } = opts;
  const x = useStarted(
    () => startXStandIn(standIn),
    (started) => started.close(),
  );
  if (checkSchemas) afterEach(() => expect(x.schemaViolations).toEqual([]));
  return x;
}

/** The service's variables for the stand-in as the operator's X app. */
export const xEnv = (x: XStandIn) => ({
  X_API_URL: x.url,
  X_AUTHORIZE_URL: x.authorizeUrl,
  X_CLIENT_ID: x.clientId,
  X_CLIENT_SECRET: x.clientSecret,
});

/** The stand-in as the operator's X app: its addresses and client credentials. */
export const standInApp = (x: XStandIn): PlatformApp => platformApps(xEnv(x)).x;

export type XHarness = Omit<PublishingHarness, 'connectBrand'> & {
  /**
   * A brand connected to the stand-in's user with tokens it issued, and a key (read, publish,
   * media); `credentials` adds to or replaces what is stored (an `expires_at` in the past).
   */
  connectBrand(credentials?: Record<string, unknown>): Promise<ConnectedBrand>;
};

/** The calling file's XHarness, built once its server and stand-in have started. */
export const useXHarness = (
  server: TestServer,
  x: XStandIn,
  credentialsKey: CredentialsKey,
  opts: XHarnessOptions = {},
): XHarness => useStarted(async () => xHarness(server, x, credentialsKey, opts));

export type XHarnessOptions = Pick<PublishingSetup, 'oauthApp'>;

export function xHarness(
  server: TestServer,
  x: XStandIn,
  credentialsKey: CredentialsKey,
  opts: XHarnessOptions = {},
): XHarness {
  const app = standInApp(x);
  const connector = builtinConnectors({
    outbound: outboundPolicy(server.config),
    storage: storageFor(server.config),
    platformApps: { ...server.config.platformApps, x: app },
    requestTimeoutMs: 2_000,
  }).x!;
  const harness = publishingHarness(server, {
    platform: 'x',
    connector,
    credentialsKey,
    app,
    ...opts,
  });
  return {
    ...harness,
    connectBrand: (credentials = {}) =>
      harness.connectBrand({
        handle: `@${x.user.username}`,
        credentials: {
          ...x.issueTokens(),
          user_id: x.user.id,
          username: x.user.username,
          ...credentials,
        },
      }),
  };
}
