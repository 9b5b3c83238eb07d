// X and LinkedIn accounts connected as an operator would with the CLI (`connect --config`
// with an access token only, no refresh token), published through the service's own wiring
// (the connectors built from X_API_URL / LINKEDIN_API_URL, the connection layer's tokens with
// the registered OAuth apps), against the documentation-written stand-ins: a post is
// published with its permalink, and a 401 ends in needs_reconnect, never a crash.
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../core/admin/service.ts';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { builtinConnectors, OAUTH_APPS } from '../../core/connectors/service.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { publishScheduledPost } from '../../core/posts/publication.ts';
import { storageFor } from '../../core/storage/storage.ts';
import { hourAhead } from '../support/jobs.ts';
import { type StandInLinkedIn, startStandInLinkedIn } from '../support/platforms/linkedin.ts';
import { startXStandIn, type XStandIn } from '../support/platforms/x.ts';
import { call, makeAccount, makeKey, type TestAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY_B64 = Buffer.alloc(32, 43).toString('base64');

let x: XStandIn;
let li: StandInLinkedIn;
beforeAll(async () => {
  x = await startXStandIn();
  li = await startStandInLinkedIn();
  return async () => {
    await x.close();
    await li.close();
  };
});
const server = useServer(() => ({
  env: {
    ...LOOPBACK_OUTBOUND,
    CREDENTIALS_KEY: KEY_B64,
    X_API_URL: x.url,
    X_CLIENT_ID: x.clientId,
    X_CLIENT_SECRET: x.clientSecret,
    LINKEDIN_API_URL: li.url,
    LINKEDIN_OAUTH_URL: li.url,
    LINKEDIN_CLIENT_ID: li.clientId,
    LINKEDIN_CLIENT_SECRET: li.clientSecret,
  },
}));

/** The CLI's `connect`, as bin/admin.ts runs it. */
const connect = (acct: TestAccount, platform: string, config: unknown) =>
  COMMANDS.connect!.run(
    server.pool,
    { email: acct.email, 'brand-id': acct.brandId, platform, config: JSON.stringify(config) },
    { config: server.config },
  ) as Promise<{ id: string; platform: string; handle: string }>;

/** The worker's publication deps, as workers/index.ts builds them from the configuration. */
const deps = () => {
  const outbound = outboundPolicy(server.config);
  return {
    connectors: builtinConnectors({
      outbound,
      storage: storageFor(server.config),
      platformApps: server.config.platformApps,
      requestTimeoutMs: 5_000,
    }),
    credentialsKey: credentialsKey(KEY_B64),
    oauth: { platformApps: server.config.platformApps, outbound, apps: OAUTH_APPS },
  };
};

async function scheduled(acct: TestAccount, platform: string, body: string) {
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
  const res = await call(server, 'POST', '/v1/posts', {
    key,
    body: { platform, body, schedule_at: hourAhead() },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const postRow = async (id: string) =>
  (await server.pool.query('select * from posts where id = $1', [id])).rows[0];
const connectionStatus = async (id: string) =>
  (await server.pool.query('select status from connected_accounts where id = $1', [id])).rows[0]
    .status;

async function publish(id: string) {
  const row = await postRow(id);
  return publishScheduledPost(
    server.pool,
    deps(),
    { post_id: id, scheduled_for: row.scheduled_for.toISOString(), attempts_before: 0 },
    { number: 1, max: 5, signal: new AbortController().signal },
  );
}

describe('X connected with an access token only', () => {
  it('publishes with the x.com permalink', async () => {
    const acct = await makeAccount(server.pool);
    const { access_token } = x.issueTokens('tweet.read tweet.write users.read media.write');
    const connected = await connect(acct, 'x', { access_token });
    expect(connected.handle).toBe(`@${x.user.username}`);
    const id = await scheduled(acct, 'x', 'Connected by the CLI');
    expect(await publish(id)).toBe('published');
    const row = await postRow(id);
    expect(row.permalink_url).toBe(
      `https://x.com/${x.user.username}/status/${row.external_post_id}`,
    );
  });

  it('a 401 fails the post and marks the connection needs_reconnect', async () => {
    const acct = await makeAccount(server.pool);
    const { access_token } = x.issueTokens('tweet.read tweet.write users.read media.write');
    const connected = await connect(acct, 'x', { access_token });
    const id = await scheduled(acct, 'x', 'Token revoked since');
    x.expireAccessTokens();
    expect(await publish(id)).toBe('failed');
    expect((await postRow(id)).error).toMatch(/reconnect/i);
    expect(await connectionStatus(connected.id)).toBe('needs_reconnect');
  });
});

describe('LinkedIn connected with an access token only', () => {
  it('publishes with the feed/update permalink', async () => {
    const acct = await makeAccount(server.pool);
    const member = li.member();
    const connected = await connect(acct, 'linkedin', { access_token: member.accessToken });
    expect(connected.handle).toBe('Ada Lovelace');
    const id = await scheduled(acct, 'linkedin', 'Connected by the CLI');
    expect(await publish(id)).toBe('published');
    const row = await postRow(id);
    expect(row.external_post_id).toMatch(/^urn:li:share:\d+$/);
    expect(row.permalink_url).toBe(`https://www.linkedin.com/feed/update/${row.external_post_id}/`);
    expect(li.headerFaults).toEqual([]);
  });

  it('a 401 fails the post and marks the connection needs_reconnect', async () => {
    const acct = await makeAccount(server.pool);
    const member = li.member();
    const connected = await connect(acct, 'linkedin', { access_token: member.accessToken });
    const id = await scheduled(acct, 'linkedin', 'Token expired since');
    li.expire(member.accessToken);
    expect(await publish(id)).toBe('failed');
    expect((await postRow(id)).error).toMatch(/reconnect/i);
    expect(await connectionStatus(connected.id)).toBe('needs_reconnect');
  });
});
