// What the reading jobs (metrics, trends, competitors) take in a test: the server's pool, the
// built-in connectors under its outbound policy (loopback allowed by LOOPBACK_OUTBOUND), and
// the test's credentials key.
import type { CredentialsKey } from '../../core/connections/credentials.ts';
import { builtinConnectors } from '../../core/connectors/builtin.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { storageFor } from '../../core/storage/storage.ts';
import type { TestServer } from './service.ts';

export const readingDeps = (
  server: TestServer,
  credentialsKey: CredentialsKey,
  opts: { blueskyAppView?: string } = {},
) => ({
  pool: server.pool,
  connectors: builtinConnectors({
    outbound: outboundPolicy(server.config),
    storage: storageFor(server.config),
    ...opts,
  }),
  credentialsKey,
});
