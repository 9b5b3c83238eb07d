// Publishing to the Threads stand-in through the real publication job (publishScheduledPost)
// and the real token layer (withAccessTokens, refreshing through Threads' OAuthApp) on a test
// server's Postgres: a brand connected with a long-lived token of the stand-in's user, a post
// scheduled through the API, and one run of the job at a time.
import { type CredentialsKey, sealCredentials } from '../../../core/connections/credentials.ts';
import type { PublicMedia } from '../../../core/connectors/connector.ts';
import { threadsConnector } from '../../../core/connectors/threads/index.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { type PlatformApp, platformApps } from '../../../core/platformApps.ts';
import { type PublicationResult, publishScheduledPost } from '../../../core/posts/publication.ts';
import { hourAhead } from '../jobs.ts';
import { call, makeConnectedAccount, type TestServer } from '../server.ts';
import { META_APP } from './metaOauth.ts';
import { oauthContext } from './standIn.ts';
import type { ThreadsStandIn } from './threads.ts';

/** The brand user of the Meta stand-ins (metaOauth.ts). */
export const THREADS_USER = { id: '17841400000000001', username: 'brand.studio' };

/** The stand-in as the operator's Threads app: its address and Meta's app credentials. */
export const threadsApp = (t: ThreadsStandIn): PlatformApp =>
  oauthContext('threads', t.url, META_APP).app;

export type ThreadsHarness = {
  /** A brand connected to the stand-in's user with a long-lived token `ageS` old. */
  connectBrand(opts?: { ageS?: number; expiresInS?: number }): Promise<{
    key: string;
    connectedId: string;
    token: string;
  }>;
  schedule(key: string, body: Record<string, unknown>): Promise<{ id: string; at: string }>;
  /** One run of the publication job as attempt `number` of 5. */
  runJob(post: { id: string; at: string }, number?: number): Promise<PublicationResult>;
  row(id: string): Promise<Record<string, any>>;
};

export function threadsHarness(
  server: TestServer,
  t: ThreadsStandIn,
  credentialsKey: CredentialsKey,
  opts: { publicMedia?: PublicMedia; pollBoundMs?: number } = {},
): ThreadsHarness {
  const policy = outboundPolicy(server.config);
  const connector = () =>
    threadsConnector({
      outbound: policy,
      apiUrl: t.url,
      publicMedia: opts.publicMedia,
      requestTimeoutMs: 5_000,
      containerPoll: { intervalMs: 20, boundMs: opts.pollBoundMs ?? 3_000 },
    });
  return {
    async connectBrand({ ageS = 2 * 86_400, expiresInS } = {}) {
      const token = t.longLived('brand', ageS);
      const expires = expiresInS ?? 5_183_944 - ageS;
      const made = await makeConnectedAccount(server.pool, 'threads', {
        scopes: ['read', 'publish', 'media'],
        handle: `@${THREADS_USER.username}`,
        credentials: sealCredentials(credentialsKey, {
          access_token: token,
          expires_at: new Date(Date.now() + expires * 1000).toISOString(),
          user_id: THREADS_USER.id,
        }),
      });
      return { key: made.key, connectedId: String(made.connected.id), token };
    },
    async schedule(key, body) {
      const at = hourAhead();
      const res = await call(server, 'POST', '/v1/posts', {
        key,
        body: { platform: 'threads', schedule_at: at, ...body },
      });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id, at };
    },
    runJob: (post, number = 1) =>
      publishScheduledPost(
        server.pool,
        {
          connectors: { threads: connector() },
          credentialsKey,
          oauth: {
            platformApps: { ...platformApps({}), threads: threadsApp(t) },
            outbound: policy,
          },
        },
        { post_id: post.id, scheduled_for: post.at, attempts_before: number - 1 },
        { number, max: 5, signal: new AbortController().signal },
      ),
    async row(id) {
      return (await server.pool.query('select * from posts where id = $1', [id])).rows[0];
    },
  };
}
