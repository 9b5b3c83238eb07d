// What the acceptance tests of the publishing platforms share: the service on loopback with
// the platforms' stand-ins (started first, so they outlive it) and the worker role beside it as
// bin/start.ts runs it, a signed-in account with a webhook endpoint, connecting its brand
// through the operator CLI's connect path, waiting for the worker to settle posts, the
// post.published deliveries, and an MCP client's tool calls.
import { expect } from 'vitest';
import { publicMediaFor } from '../../core/assets/service.ts';
import type { credentialsKey } from '../../core/connections/credentials.ts';
import { connectAccount } from '../../core/connections/service.ts';
import type { OAuthPlatform } from '../../core/platformApps.ts';
import { freePort } from './browser.ts';
import { hourAhead, publishNow } from './jobs.ts';
import { connectMcp } from './mcpClient.ts';
import type { Receiver } from './receiver.ts';
import { call, makeSignedInAccount, TEST_MEDIA_URL_SECRET, type TestServer } from './server.ts';
import { startWorkerBeside, useServer, useStarted } from './service.ts';
import { waitFor } from './wait.ts';

/** Stand-ins as the service sees them: its variables and the key it seals credentials with. */
export type ServedStandIns = {
  env: Record<string, string>;
  credentialsKey: ReturnType<typeof credentialsKey>;
  close(): Promise<void>;
};

export type AcceptanceOptions = {
  /**
   * The service's PUBLIC_BASE_URL is its own loopback address (a port chosen first, handed to
   * `start`), and the worker hands the platforms its signed media addresses under it.
   */
  publicBaseUrl?: boolean;
  /** The worker signs media addresses under PUBLIC_BASE_URL (for platforms that fetch media). */
  publicMedia?: boolean;
};

/**
 * The calling file's stand-ins (from `start`, given the service's public base URL), its server
 * pointed at them, and a worker beside it with the server's platform addresses and sealing key.
 */
export function useAcceptanceService<P extends ServedStandIns>(
  start: (publicBaseUrl: string) => Promise<P>,
  { publicBaseUrl = false, publicMedia = false }: AcceptanceOptions = {},
): { platforms: P; server: TestServer } {
  let port = 0;
  const platforms = useStarted(
    async () => {
      if (publicBaseUrl) port = await freePort();
      return start(`http://127.0.0.1:${port}`);
    },
    (started) => started.close(),
  );
  const server = useServer(() =>
    publicBaseUrl
      ? { port, env: { ...platforms.env, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } }
      : { env: platforms.env },
  );
  useStarted(
    () =>
      startWorkerBeside(server, {
        storage: true,
        platformApps: server.config.platformApps,
        credentialsKey: platforms.credentialsKey,
        ...(publicMedia
          ? {
              publicMedia: publicMediaFor({
                publicBaseUrl: server.config.publicBaseUrl,
                mediaUrlSecret: TEST_MEDIA_URL_SECRET,
              }),
            }
          : {}),
      }),
    (worker) => worker.stop(),
  );
  return { platforms, server };
}

/**
 * A Plus account signed in, with a webhook endpoint at `receiver`'s `path` for post.published
 * and post.failed, and `connect`, which connects its brand as `admin connect --config` does.
 */
export async function accountWithWebhook(server: TestServer, receiver: Receiver, path: string) {
  const { acct, cookie } = await makeSignedInAccount(server, 'plus');
  const hook = await call(server, 'POST', '/webhooks', {
    headers: { cookie },
    body: { url: receiver.url(path), events: ['post.published', 'post.failed'] },
  });
  expect(hook.status).toBe(201);
  const connect = (platform: OAuthPlatform, config: Record<string, unknown>) =>
    connectAccount(server.pool, server.config, {
      accountId: acct.accountId,
      brandId: acct.brandId,
      platform,
      config,
    });
  return { acct, connect };
}

/**
 * Makes the posts of `ids` due now (rather than waiting an hour) and waits until the worker is
 * done with every one (published or failed).
 */
export async function publishNowAndSettle(server: TestServer, ids: string[], timeoutMs: number) {
  for (const id of ids) await publishNow(server.pool, id);
  await waitFor(
    async () => {
      const { rows } = await server.pool.query(
        `select count(*)::int as n from posts where id = any($1) and status in ('published', 'failed')`,
        [ids],
      );
      return rows[0].n === ids.length;
    },
    { what: `posts ${ids.join(', ')} to be published`, timeoutMs },
  );
}

/** The post.published deliveries to `path`, by post id, once there are as many as `ids`. */
export async function publishedEvents(receiver: Receiver, path: string, ids: string[]) {
  const events = await waitFor(
    async () => {
      const got = receiver
        .on(path)
        .map((a) => JSON.parse(a.raw.toString('utf8')))
        .filter((b) => b.event === 'post.published');
      return got.length >= ids.length && got;
    },
    { what: 'the post.published deliveries' },
  );
  return Object.fromEntries(events.map((e) => [e.post.id, e.post]));
}

/**
 * A post created through POST /v1/posts, due in an hour, to a connected platform: a 201 with
 * nothing to warn about. Its id.
 */
export async function scheduleThroughRest(
  server: TestServer,
  key: string,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await call(server, 'POST', '/v1/posts', {
    key,
    body: { ...body, schedule_at: hourAhead() },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  // Connected: nothing to warn about.
  expect(res.body.warnings).toBeUndefined();
  return res.body.id;
}

/**
 * An MCP client with `key`: `tool` calls one and expects no isError; `schedule` makes a post
 * with create_post and schedules it an hour ahead with schedule_post, neither warning (the
 * platform is connected), and answers its id; `close` ends it.
 */
export async function mcpTools(server: TestServer, key: string) {
  const client = await connectMcp(server, key);
  const tool = async (name: string, args: Record<string, unknown>) => {
    const res = await client.callTool({ name, arguments: args });
    expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
    return res.structuredContent as Record<string, any>;
  };
  return {
    tool,
    async schedule(post: Record<string, unknown>): Promise<string> {
      const created = await tool('create_post', post);
      expect(created.warnings).toBeUndefined();
      const scheduled = await tool('schedule_post', {
        post_id: created.post.id,
        when: hourAhead(),
      });
      expect(scheduled.post.status).toBe('scheduled');
      expect(scheduled.warnings).toBeUndefined();
      return created.post.id;
    },
    close: () => client.close(),
  };
}
