// Idle connections' tokens renewed before they die: the renew_connections task, run as the
// worker registers it, extends the Threads and Instagram long-lived tokens that expire within
// ten days through the jobs' locked refresh (test/support/platforms/metaOauth.ts stands in for
// Meta's hosts: tokens extended only once a day old and while alive, the clock moved with
// `advance`). A young token is left alone, a revoked one ends needs_reconnect with the reason
// list_accounts shows, a connection another transaction holds is skipped for the next run,
// another failure is said on the account, and Facebook's Page tokens are not renewed.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey, openCredentials } from '../../core/connections/credentials.ts';
import { connectWithTokens, listConnectedAccounts } from '../../core/connections/service.ts';
import { facebookOAuthApp } from '../../core/connectors/oauth/facebook.ts';
import { threadsOAuthApp } from '../../core/connectors/oauth/threads.ts';
import { TASK } from '../../core/jobs/tasks.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import type { OAuthPlatform } from '../../core/platformApps.ts';
import { taskList } from '../../workers/index.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { META_APP, type MetaStandIn, startMetaOauth } from '../support/platforms/metaOauth.ts';
import { makeAccount, makeKey, type TestAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY_B64 = Buffer.alloc(32, 43).toString('base64');
const KEY = credentialsKey(KEY_B64);
const DAY_S = 86_400;
/** Meta's long-lived token lifetime (`expires_in`). */
const LONG_LIVED_S = 5_183_944;

const FACEBOOK_REDIRECT = 'https://sps.example/connect/facebook/callback';
let threads: MetaStandIn;
let instagram: MetaStandIn;
let facebook: MetaStandIn;
beforeAll(async () => {
  [threads, instagram, facebook] = await Promise.all([
    startMetaOauth('threads', 'https://sps.example/connect/threads/callback'),
    startMetaOauth('instagram', 'https://sps.example/connect/instagram/callback'),
    startMetaOauth('facebook', FACEBOOK_REDIRECT),
  ]);
  return async () => {
    await Promise.all([threads.close(), instagram.close(), facebook.close()]);
  };
});
const server = useServer(() => ({
  env: {
    ...LOOPBACK_OUTBOUND,
    CREDENTIALS_KEY: KEY_B64,
    THREADS_API_URL: threads.url,
    INSTAGRAM_API_URL: instagram.url,
    FACEBOOK_API_URL: facebook.url,
    FACEBOOK_CLIENT_ID: META_APP.id,
    FACEBOOK_CLIENT_SECRET: META_APP.secret,
  },
}));
const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
});

const standIn = (platform: 'threads' | 'instagram') =>
  platform === 'threads' ? threads : instagram;

/** What the worker logged while renewing. */
const logged: string[] = [];

/** The renew_connections task as the worker registers it, run as its crontab runs it. */
async function runRenewal() {
  const outbound = outboundPolicy(server.config);
  const task = taskList({
    pool: server.pool,
    connectors: {},
    credentialsKey: KEY,
    oauth: { platformApps: server.config.platformApps, outbound },
    outbound,
  })[TASK.renewConnections]!;
  const say = (line: string) => logged.push(line);
  const helpers = {
    logger: { info: say, warn: say, error: say, debug: say },
    abortSignal: new AbortController().signal,
  } as never;
  await task({ _cron: { ts: new Date().toISOString(), backfilled: false } }, helpers);
}

/**
 * A new account whose brand connects `platform` (through the connect path, which names the
 * account with Meta's identity call) with a long-lived token issued `ageDays` ago as `user`,
 * stored with the expiry Meta gave it.
 */
async function connectedWith(
  platform: 'threads' | 'instagram',
  ageDays: number,
  user = 'brand',
): Promise<{ acct: TestAccount; id: string; token: string }> {
  const acct = await makeAccount(server.pool);
  const token = standIn(platform).longLived(user, ageDays * DAY_S);
  const expiresAt = new Date(Date.now() + (LONG_LIVED_S - ageDays * DAY_S) * 1000);
  const { id } = await connectWithTokens(server.pool, server.config, {
    accountId: acct.accountId,
    brandId: acct.brandId,
    platform,
    credentials: { access_token: token, expires_at: expiresAt.toISOString() },
  });
  return { acct, id, token };
}

const row = async (id: string) =>
  (await server.pool.query('select * from connected_accounts where id = $1', [id])).rows[0];
const daysAhead = (at: Date) => (at.getTime() - Date.now()) / (DAY_S * 1000);
/** The extensions the stand-in was asked for with `token`. */
const extensionsOf = (platform: 'threads' | 'instagram', token: string) =>
  standIn(platform).received.filter(
    (r) => r.path === '/refresh_access_token' && r.query.access_token === token,
  );

describe('a long-lived token expiring within ten days', () => {
  it.each(['threads', 'instagram'] as const)(
    '%s: is extended 60 days, the new token sealed and the old one gone',
    async (platform) => {
      const { id, token } = await connectedWith(platform, 55);
      expect(daysAhead((await row(id)).token_expires_at)).toBeLessThan(5);
      await runRenewal();
      expect(extensionsOf(platform, token)).toHaveLength(1);
      const after = await row(id);
      expect(after.status).toBe('active');
      expect(daysAhead(after.token_expires_at)).toBeGreaterThan(59);
      const stored = openCredentials(KEY, after.credentials);
      expect(stored.access_token).not.toBe(token);
      expect(standIn(platform).tokens.get(stored.access_token as string)?.kind).toBe('long');
      // The identity call's user id is kept beside the new token.
      expect(stored.user_id).toBe('17841400000000001');
      expect(Date.parse(stored.expires_at as string)).toBe(after.token_expires_at.getTime());
      // Sealed at rest: neither token readable in the stored bytes, the old one not kept at all.
      const raw = after.credentials.toString('latin1');
      expect(raw).not.toContain(stored.access_token);
      expect(raw).not.toContain(token);
      expect(JSON.stringify(stored)).not.toContain(token);
      // A rerun finds nothing to renew: no second call.
      await runRenewal();
      expect(extensionsOf(platform, stored.access_token as string)).toHaveLength(0);
      expect(extensionsOf(platform, token)).toHaveLength(1);
    },
  );

  it('that Meta revoked ends needs_reconnect with the reason, shown by list_accounts', async () => {
    const { acct, id, token } = await connectedWith('threads', 55, 'other');
    threads.revoke('other');
    await runRenewal();
    expect(extensionsOf('threads', token)).toHaveLength(1);
    const after = await row(id);
    expect(after.status).toBe('needs_reconnect');
    expect(after.last_error).toMatch(
      /^The Threads connection needs to be reconnected: Threads refused to refresh its access token \(.*Invalid OAuth access token/,
    );
    expect(after.last_error).not.toContain(token);
    const key = await makeKey(server.pool, acct.accountId, ['read']);
    const client = await connectMcp(server, key);
    clients.push(client);
    const listed = (await client.callTool({ name: 'list_accounts', arguments: {} }))
      .structuredContent as { accounts: Record<string, unknown>[] };
    expect(listed.accounts).toEqual([
      expect.objectContaining({
        platform: 'threads',
        status: 'needs_reconnect',
        last_error: after.last_error,
      }),
    ]);
    // Marked, it is not asked for again.
    await runRenewal();
    expect(extensionsOf('threads', token)).toHaveLength(1);
    expect(logged.join('\n')).not.toContain(token);
  });
});

describe('a token not yet due', () => {
  it('a few hours old, or a month from expiry, is left alone: no call', async () => {
    const young = await connectedWith('threads', 0.2);
    const month = await connectedWith('instagram', 30);
    const before = [await row(young.id), await row(month.id)];
    await runRenewal();
    expect(extensionsOf('threads', young.token)).toHaveLength(0);
    expect(extensionsOf('instagram', month.token)).toHaveLength(0);
    const after = [await row(young.id), await row(month.id)];
    for (const [i, r] of after.entries()) {
      expect(r.credentials.equals(before[i]!.credentials)).toBe(true);
      expect(r.token_expires_at).toEqual(before[i]!.token_expires_at);
    }
  });
});

describe('a Facebook connection', () => {
  it('is not renewed: the Page token from the connect flow has no expiry, one given by hand cannot be', async () => {
    const ctx = {
      app: server.config.platformApps.facebook,
      policy: outboundPolicy(server.config),
    };
    const flow = await facebookOAuthApp.exchangeCode(ctx, {
      code: facebook.issueCode(),
      redirectUri: FACEBOOK_REDIRECT,
    });
    const viaFlow = await makeAccount(server.pool);
    const flowed = await connectWithTokens(server.pool, server.config, {
      accountId: viaFlow.accountId,
      brandId: viaFlow.brandId,
      platform: 'facebook',
      credentials: flow,
    });
    // A Page token given to the CLI with the expiry it was issued with, and no user token.
    const byHand = await makeAccount(server.pool);
    const fiveDays = new Date(Date.now() + 5 * DAY_S * 1000).toISOString();
    const handed = await connectWithTokens(server.pool, server.config, {
      accountId: byHand.accountId,
      brandId: byHand.brandId,
      platform: 'facebook',
      credentials: {
        access_token: flow.access_token,
        page_id: (flow as Record<string, unknown>).page_id,
        expires_at: fiveDays,
      },
    });
    const requests = facebook.received.length;
    await runRenewal();
    expect(facebook.received.length).toBe(requests);
    expect((await row(flowed.id)).token_expires_at).toBeNull();
    expect((await row(handed.id)).status).toBe('active');
    // Nothing renews the one given by hand: list_accounts says when it ends, and asks for a
    // reconnect before.
    expect(await listConnectedAccounts(server.pool, byHand.accountId)).toEqual([
      expect.objectContaining({ expires_at: fiveDays, reconnect_soon: true, status: 'active' }),
    ]);
  });
});

describe('a connection another transaction holds', () => {
  it('is skipped (the next run takes it) while the others are renewed', async () => {
    const held = await connectedWith('threads', 56);
    const others = [await connectedWith('threads', 57), await connectedWith('instagram', 58)];
    const client = await server.pool.connect();
    try {
      await client.query('begin');
      // As a publication's refresh would hold it.
      await client.query('select 1 from connected_accounts where id = $1 for update', [held.id]);
      logged.length = 0;
      await runRenewal();
      expect(logged).toContain(
        "renewing connections' tokens: 2 renewed, 0 unchanged, 1 busy, 0 refused, 0 failed",
      );
    } finally {
      await client.query('rollback');
      client.release();
    }
    expect(extensionsOf('threads', held.token)).toHaveLength(0);
    expect(daysAhead((await row(held.id)).token_expires_at)).toBeLessThan(5);
    for (const [i, o] of others.entries()) {
      expect(extensionsOf(i === 0 ? 'threads' : 'instagram', o.token)).toHaveLength(1);
      expect(daysAhead((await row(o.id)).token_expires_at)).toBeGreaterThan(59);
    }
    // Released, the next run renews it.
    await runRenewal();
    expect(extensionsOf('threads', held.token)).toHaveLength(1);
    const after = await row(held.id);
    expect(after.status).toBe('active');
    expect(daysAhead(after.token_expires_at)).toBeGreaterThan(59);
  });
});

describe('a renewal that fails otherwise', () => {
  it('an answer without a token is said on the account, left active, and the next run renews it', async () => {
    const { acct, id, token } = await connectedWith('threads', 55);
    threads.answerNext('GET /refresh_access_token', {
      status: 200,
      body: { token_type: 'bearer', expires_in: LONG_LIVED_S },
    });
    await runRenewal();
    const failed = await row(id);
    expect(failed.status).toBe('active');
    expect(failed.last_error).toMatch(/^Renewing the access token: Threads/);
    expect(openCredentials(KEY, failed.credentials).access_token).toBe(token);
    await runRenewal();
    expect(await listConnectedAccounts(server.pool, acct.accountId)).toEqual([
      expect.objectContaining({ status: 'active', last_error: null }),
    ]);
    expect(daysAhead((await row(id)).token_expires_at)).toBeGreaterThan(59);
  });
});

describe('a renewed connection', () => {
  it("keeps working past the old token's expiry", async () => {
    const { id, token } = await connectedWith('threads', 55);
    await runRenewal();
    const renewed = openCredentials(KEY, (await row(id)).credentials);
    const platform: OAuthPlatform = 'threads';
    const ctx = {
      app: server.config.platformApps[platform],
      policy: outboundPolicy(server.config),
    };
    // A week on at Meta: the old token has died, the renewed one names the account.
    threads.advance(7 * DAY_S);
    await expect(threadsOAuthApp.identify(ctx, { access_token: token })).rejects.toThrow(
      /Invalid OAuth access token/,
    );
    expect(await threadsOAuthApp.identify(ctx, renewed)).toMatchObject({
      handle: '@brand.studio',
    });
  });
});
