// X and LinkedIn accounts connected as an operator would with the CLI (`connect --config`
// with an access token only, no refresh token), published through the service's own wiring
// (the connectors built from X_API_URL / LINKEDIN_API_URL, the connection layer's tokens with
// the registered OAuth apps), against the documentation-written stand-ins: a post is
// published with its permalink, and a 401 ends in needs_reconnect, never a crash.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../core/admin/service.ts';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { builtinConnectors } from '../../core/connectors/service.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { storageFor } from '../../core/storage/storage.ts';
import { linkedinEnv, useLinkedInStandIn } from '../support/platforms/linkedinHarness.ts';
import { publishingHarness } from '../support/platforms/publishingHarness.ts';
import { useXStandIn, xEnv } from '../support/platforms/xHarness.ts';
import { makeAccount, makeKey, type TestAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY_B64 = Buffer.alloc(32, 43).toString('base64');

const x = useXStandIn();
const li = useLinkedInStandIn();
const server = useServer(() => ({
  env: { ...LOOPBACK_OUTBOUND, CREDENTIALS_KEY: KEY_B64, ...xEnv(x), ...linkedinEnv(li) },
}));

/** The CLI's `connect`, as bin/admin.ts runs it. */
const connect = (acct: TestAccount, platform: string, config: unknown) =>
  COMMANDS.connect!.run(
    server.pool,
    { email: acct.email, 'brand-id': acct.brandId, platform, config: JSON.stringify(config) },
    { config: server.config },
  ) as Promise<{ id: string; platform: string; handle: string }>;

/**
 * Publishing to `platform` as workers/index.ts wires it from the configuration: the built-in
 * connectors, the configured apps and the registered OAuth apps.
 */
const harness = (platform: 'x' | 'linkedin') =>
  publishingHarness(server, {
    platform,
    connector: builtinConnectors({
      outbound: outboundPolicy(server.config),
      storage: storageFor(server.config),
      platformApps: server.config.platformApps,
      requestTimeoutMs: 5_000,
    })[platform]!,
    credentialsKey: credentialsKey(KEY_B64),
    app: server.config.platformApps[platform],
  });

/** A post of the account's, scheduled through the API with a key of its own, and its harness. */
async function scheduled(acct: TestAccount, platform: 'x' | 'linkedin', body: string) {
  const h = harness(platform);
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
  return { h, post: await h.schedule(key, { body }) };
}

describe('X connected with an access token only', () => {
  it('publishes with the x.com permalink', async () => {
    const acct = await makeAccount(server.pool);
    const { access_token } = x.issueTokens('tweet.read tweet.write users.read media.write');
    const connected = await connect(acct, 'x', { access_token });
    expect(connected.handle).toBe(`@${x.user.username}`);
    const { h, post } = await scheduled(acct, 'x', 'Connected by the CLI');
    expect(await h.runJob(post)).toBe('published');
    const row = await h.row(post.id);
    expect(row.permalink_url).toBe(
      `https://x.com/${x.user.username}/status/${row.external_post_id}`,
    );
  });

  it('a 401 fails the post and marks the connection needs_reconnect', async () => {
    const acct = await makeAccount(server.pool);
    const { access_token } = x.issueTokens('tweet.read tweet.write users.read media.write');
    const connected = await connect(acct, 'x', { access_token });
    const { h, post } = await scheduled(acct, 'x', 'Token revoked since');
    x.expireAccessTokens();
    expect(await h.runJob(post)).toBe('failed');
    expect((await h.row(post.id)).error).toMatch(/reconnect/i);
    expect((await h.connection(connected.id)).status).toBe('needs_reconnect');
  });
});

describe('LinkedIn connected with an access token only', () => {
  it('publishes with the feed/update permalink', async () => {
    const acct = await makeAccount(server.pool);
    const member = li.member();
    const connected = await connect(acct, 'linkedin', { access_token: member.accessToken });
    expect(connected.handle).toBe('Ada Lovelace');
    const { h, post } = await scheduled(acct, 'linkedin', 'Connected by the CLI');
    expect(await h.runJob(post)).toBe('published');
    const row = await h.row(post.id);
    expect(row.external_post_id).toMatch(/^urn:li:share:\d+$/);
    expect(row.permalink_url).toBe(`https://www.linkedin.com/feed/update/${row.external_post_id}/`);
    expect(li.headerFaults).toEqual([]);
  });

  it('a 401 fails the post and marks the connection needs_reconnect', async () => {
    const acct = await makeAccount(server.pool);
    const member = li.member();
    const connected = await connect(acct, 'linkedin', { access_token: member.accessToken });
    const { h, post } = await scheduled(acct, 'linkedin', 'Token expired since');
    li.expire(member.accessToken);
    expect(await h.runJob(post)).toBe('failed');
    expect((await h.row(post.id)).error).toMatch(/reconnect/i);
    expect((await h.connection(connected.id)).status).toBe('needs_reconnect');
  });
});
