// Connecting an OAuth platform's account with tokens (the CLI's `connect --config`, the
// dashboard's callback): the platform's identity call names it, then the tokens are sealed
// with the ids it answered, and list_accounts says when the connection must be renewed.
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../core/admin/service.ts';
import { credentialsKey, openCredentials } from '../../core/connections/credentials.ts';
import { connectWithTokens, listConnectedAccounts } from '../../core/connections/service.ts';
import { xOAuthApp } from '../../core/connectors/oauth/x.ts';
import { type StandInLinkedIn, startStandInLinkedIn } from '../support/platforms/linkedin.ts';
import { startXStandIn, type XStandIn } from '../support/platforms/x.ts';
import { makeAccount, type TestAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY_B64 = Buffer.alloc(32, 41).toString('base64');
const DAY = 86_400_000;

// The shipped OAuthApps (OAUTH_APPS) against the X and LinkedIn stand-ins.
let x: XStandIn;
let li: StandInLinkedIn;
beforeAll(async () => {
  [x, li] = await Promise.all([
    startXStandIn({ user: { username: 'launchbrand' } }),
    startStandInLinkedIn(),
  ]);
  return async () => {
    await Promise.all([x.close(), li.close()]);
  };
});
const server = useServer(() => ({
  env: {
    ...LOOPBACK_OUTBOUND,
    CREDENTIALS_KEY: KEY_B64,
    X_API_URL: x.url,
    LINKEDIN_API_URL: li.url,
    LINKEDIN_OAUTH_URL: li.url,
  },
}));

/** The CLI's `connect`, as bin/admin.ts runs it. */
const connect = (acct: TestAccount, platform: string, config: unknown) =>
  COMMANDS.connect!.run(
    server.pool,
    {
      email: acct.email,
      'brand-id': acct.brandId,
      platform,
      config: JSON.stringify(config),
    },
    { config: server.config },
  );

const stored = async (id: string) =>
  openCredentials(
    credentialsKey(KEY_B64),
    (await server.pool.query('select credentials from connected_accounts where id = $1', [id]))
      .rows[0].credentials,
  );

describe('npm run admin -- connect, for an OAuth platform', () => {
  it('checks the tokens with the identity call, then stores them sealed with the ids it answered', async () => {
    const acct = await makeAccount(server.pool);
    const { access_token, refresh_token } = x.issueTokens();
    const issued = { access_token, refresh_token };
    const expiresAt = new Date(Date.now() + 7_200_000).toISOString();
    const out = (await connect(acct, 'x', { ...issued, expires_at: expiresAt })) as {
      id: string;
    };
    expect(out).toEqual({ id: expect.any(String), platform: 'x', handle: '@launchbrand' });
    expect(await stored(out.id)).toMatchObject({
      ...issued,
      expires_at: expiresAt,
      user_id: x.user.id,
    });
    const { rows } = await server.pool.query(
      'select credentials, token_expires_at from connected_accounts where id = $1',
      [out.id],
    );
    expect(rows[0].credentials.toString('latin1')).not.toContain(issued.access_token);
    expect(rows[0].token_expires_at.toISOString()).toBe(expiresAt);
    // A refresh token renews it: it does not expire.
    expect((await listConnectedAccounts(server.pool, acct.accountId))[0]).toMatchObject({
      platform: 'x',
      handle: '@launchbrand',
      status: 'active',
      expires_at: null,
      reconnect_soon: false,
    });
  });

  it('refuses tokens the platform does not accept, storing nothing', async () => {
    const acct = await makeAccount(server.pool);
    await expect(connect(acct, 'x', { access_token: 'not-a-token' })).rejects.toMatchObject({
      code: 'credentials_refused',
      status: 422,
      message: expect.stringMatching(/^The x credentials were not accepted: X answered 401\b/),
    });
    expect(await listConnectedAccounts(server.pool, acct.accountId)).toEqual([]);
    // A platform that quotes the refused token: the message does not.
    x.inject({
      line: 'GET /2/users/me',
      answer: {
        status: 401,
        body: JSON.stringify({
          title: 'Unauthorized',
          detail: 'Unknown token quoted-token',
          status: 401,
        }),
      },
    });
    const quoted = connect(acct, 'x', { access_token: 'quoted-token' });
    await expect(quoted).rejects.toThrow(/\[redacted\]/);
    await expect(quoted).rejects.not.toThrow(/quoted-token/);
  });

  it('refuses an identity answer that names no account, storing nothing', async () => {
    const acct = await makeAccount(server.pool);
    const nameless = {
      ...xOAuthApp,
      identify: async () => ({ handle: ' ', fields: {} }),
    };
    await expect(
      connectWithTokens(
        server.pool,
        server.config,
        {
          accountId: acct.accountId,
          brandId: acct.brandId,
          platform: 'x',
          credentials: { access_token: 'abc' },
        },
        { apps: { x: nameless } },
      ),
    ).rejects.toMatchObject({ code: 'credentials_refused' });
    expect(await listConnectedAccounts(server.pool, acct.accountId)).toEqual([]);
  });

  it("names a field the platform's --config does not take, before any platform is called", async () => {
    const acct = await makeAccount(server.pool);
    await expect(connect(acct, 'x', { token: 'abc' })).rejects.toThrow(
      '--config: unknown key "token"; x takes access_token, refresh_token, expires_at',
    );
    await expect(
      connect(acct, 'linkedin', { access_token: 'abc', organization: 'acme' }),
    ).rejects.toThrow('--config: organization: must be urn:li:organization:N');
    await expect(
      connect(acct, 'x', { access_token: 'abc', expires_at: 'tomorrow' }),
    ).rejects.toThrow(/--config: expires_at/);
    await expect(connect(acct, 'threads', { access_token: 'abc' })).rejects.toThrow(
      '--config: user_id is required',
    );
  });
});

describe('a connection that cannot be renewed (LinkedIn without a partner refresh token)', () => {
  it('says when it expires, and asks for a reconnect in its last week', async () => {
    const connectFor = async (daysLeft: number) => {
      const acct = await makeAccount(server.pool);
      const expiresAt = new Date(Date.now() + daysLeft * DAY).toISOString();
      await connectWithTokens(server.pool, server.config, {
        accountId: acct.accountId,
        brandId: acct.brandId,
        platform: 'linkedin',
        credentials: { access_token: li.member().accessToken, expires_at: expiresAt },
      });
      return { listed: (await listConnectedAccounts(server.pool, acct.accountId))[0], expiresAt };
    };
    const fresh = await connectFor(60);
    expect(fresh.listed).toMatchObject({ expires_at: fresh.expiresAt, reconnect_soon: false });
    const late = await connectFor(6);
    expect(late.listed).toMatchObject({ expires_at: late.expiresAt, reconnect_soon: true });
  });

  it('with a refresh token, expires with it', async () => {
    const acct = await makeAccount(server.pool);
    const refreshExpiresAt = new Date(Date.now() + 300 * DAY).toISOString();
    await connectWithTokens(server.pool, server.config, {
      accountId: acct.accountId,
      brandId: acct.brandId,
      platform: 'linkedin',
      credentials: {
        ...(({ accessToken, refreshToken }) => ({
          access_token: accessToken,
          refresh_token: refreshToken,
        }))(li.member({ partner: true })),
        expires_at: new Date(Date.now() + 3 * DAY).toISOString(),
        refresh_expires_at: refreshExpiresAt,
      },
    });
    expect((await listConnectedAccounts(server.pool, acct.accountId))[0]).toMatchObject({
      expires_at: refreshExpiresAt,
      reconnect_soon: false,
    });
  });
});
