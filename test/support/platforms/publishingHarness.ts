// Publishing to a platform's stand-in through the real publication job (publishScheduledPost)
// on a test server's Postgres, with the service's own token layer (deps.oauth): a brand
// connected with the given credentials, sealed as the service seals them, a post scheduled
// through the API, and one run of the job at a time, so a test decides when an attempt ends
// and the next begins. Each platform's wrapper (xHarness.ts, linkedinHarness.ts) says how a
// connection to its stand-in looks.

import {
  type CredentialsKey,
  openCredentials,
  sealCredentials,
} from '../../../core/connections/credentials.ts';
import type { OAuthDeps } from '../../../core/connections/tokens.ts';
import type { Connector } from '../../../core/connectors/connector.ts';
import type { OAuthApp } from '../../../core/connectors/oauthApp.ts';
import type { Scope } from '../../../core/kernel/plans.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import type { OAuthPlatform, PlatformApp } from '../../../core/platformApps.ts';
import { type PublicationResult, publishScheduledPost } from '../../../core/posts/publication.ts';
import { hourAhead } from '../jobs.ts';
import { call, makeConnectedAccount, type TestServer } from '../server.ts';
import { useStarted } from '../service.ts';

/** What publishing to one platform's stand-in takes. */
export type PublishingSetup = {
  platform: OAuthPlatform;
  /** The platform's connector, pointed at the stand-in. */
  connector: Connector;
  /** The key the test seals connections' credentials with, as the service's CREDENTIALS_KEY. */
  credentialsKey: CredentialsKey;
  /** The operator's app on the platform: the stand-in's addresses and client credentials. */
  app: PlatformApp;
  /** An OAuthApp the token layer refreshes with instead of the platform's shipped one. */
  oauthApp?: OAuthApp;
};

/** A brand with the platform connected, and a key of the account that owns it. */
export type ConnectedBrand = {
  key: string;
  accountId: string;
  brandId: string;
  connectedId: string;
};

/** A post scheduled through the API: its id and the time it is due. */
export type ScheduledPost = { id: string; at: string };

/** A connection as stored: its status, last error and opened credentials. */
export type StoredConnection = {
  status: string;
  last_error: string | null;
  credentials: Record<string, unknown>;
  /** The credentials column as stored (sealed). */
  sealed: Buffer;
};

export type PublishingHarness = {
  connector: Connector;
  /** What the publication job's token layer is given (the stand-in as the operator's app). */
  oauth: OAuthDeps;
  /** A new account's brand connected with `credentials` (sealed) and `handle`, with a key. */
  connectBrand(connection: {
    credentials: Record<string, unknown>;
    handle: string;
    /** The key's scopes (default read, publish, media). */
    scopes?: Scope[];
  }): Promise<ConnectedBrand>;
  /** Creates the post through POST /v1/posts, due in an hour. */
  schedule(key: string, body: Record<string, unknown>): Promise<ScheduledPost>;
  /** One run of the publication job, as the worker runs it, as attempt `number` of 5. */
  runJob(post: ScheduledPost, number?: number): Promise<PublicationResult>;
  /** The post's row. */
  row(id: string): Promise<Record<string, any>>;
  /** The connection's row, its credentials opened. */
  connection(id: string): Promise<StoredConnection>;
};

export function publishingHarness(server: TestServer, setup: PublishingSetup): PublishingHarness {
  const { platform, connector, credentialsKey, app, oauthApp } = setup;
  const oauth: OAuthDeps = {
    platformApps: { ...server.config.platformApps, [platform]: app },
    outbound: outboundPolicy(server.config),
    ...(oauthApp ? { apps: { [platform]: oauthApp } } : {}),
  };
  return {
    connector,
    oauth,
    async connectBrand({ credentials, handle, scopes = ['read', 'publish', 'media'] }) {
      const { acct, key, connected } = await makeConnectedAccount(server.pool, platform, {
        scopes,
        handle,
        credentials: sealCredentials(credentialsKey, credentials),
      });
      return {
        key,
        accountId: acct.accountId,
        brandId: acct.brandId,
        connectedId: String(connected.id),
      };
    },
    async schedule(key, body) {
      const at = hourAhead();
      const res = await call(server, 'POST', '/v1/posts', {
        key,
        body: { platform, schedule_at: at, ...body },
      });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: String(res.body.id), at };
    },
    runJob: (post, number = 1) =>
      publishScheduledPost(
        server.pool,
        { connectors: { [platform]: connector }, credentialsKey, oauth },
        { post_id: post.id, scheduled_for: post.at, attempts_before: number - 1 },
        { number, max: 5, signal: new AbortController().signal },
      ),
    async row(id) {
      return (await server.pool.query('select * from posts where id = $1', [id])).rows[0];
    },
    async connection(id) {
      const { rows } = await server.pool.query(
        'select status, last_error, credentials from connected_accounts where id = $1',
        [id],
      );
      const { status, last_error, credentials } = rows[0];
      return {
        status,
        last_error,
        credentials: openCredentials(credentialsKey, credentials),
        sealed: credentials,
      };
    },
  };
}

/** The calling file's harness, built once its server and stand-in have started. */
export const usePublishingHarness = (
  server: TestServer,
  setup: () => PublishingSetup,
): PublishingHarness => useStarted(async () => publishingHarness(server, setup()));
