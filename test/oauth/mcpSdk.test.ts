// What an MCP client needs: the MCP SDK client, given only {base_url}/mcp, discovers the
// authorization server from one 401, registers itself, signs in through the consent page
// (scripted over HTTP with a dashboard session) with PKCE, lists the tools its granted scopes
// allow, calls one, refreshes its token, and loses access when the person revokes it.
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/browser.ts';
import { consentAs, MemoryOAuthClient } from '../support/oauth.ts';
import { call, makeSignedInAccount } from '../support/server.ts';
import { useServer } from '../support/service.ts';

let port = 0;
beforeAll(async () => {
  port = await freePort();
});
const server = useServer(() => ({ port, env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } }));
const origin = () => `http://127.0.0.1:${port}`;

describe('the MCP SDK client signing in by OAuth', () => {
  it('discovers, registers, consents, lists tools, calls one, refreshes and loses access on revocation', async () => {
    const { acct, cookie } = await makeSignedInAccount(server, 'plus');
    const mcpUrl = new URL(`${server.baseUrl}/mcp`);

    // One failed call says where to sign in.
    const bare = await fetch(mcpUrl, { method: 'POST', body: '{}' });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin()}/.well-known/oauth-protected-resource/mcp"`,
    );

    const client = new MemoryOAuthClient();
    expect(await auth(client, { serverUrl: mcpUrl })).toBe('REDIRECT');
    expect(client.information?.client_id).toBeTruthy();
    const asked = client.authorizationUrl!;
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(`${origin()}/mcp`);

    // The person allows read only.
    const { redirect, view } = await consentAs(
      server,
      { cookie, origin: origin() },
      asked,
      (v) => ({ allow: true, scopes: ['read'], brand_id: v.brand_id! }),
    );
    expect(view.client_name).toBe('Test MCP client');
    const code = redirect.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(await auth(client, { serverUrl: mcpUrl, authorizationCode: code! })).toBe('AUTHORIZED');
    expect(client.saved?.refresh_token).toBeTruthy();

    const mcp = new Client({ name: 'oauth-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: client }));
    const tools = (await mcp.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('list_posts');
    // Granted read only: no tool that needs publish is listed.
    expect(tools).not.toContain('create_post');
    const me = await mcp.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.stringify(me.structuredContent)).toContain(acct.email);
    await mcp.close();

    // The same token on REST and GraphQL, with the same scopes.
    const first = client.saved!.access_token;
    const rest = await call(server, 'GET', '/v1/posts', { key: first });
    expect(rest.status).toBe(200);
    const refused = await call(server, 'POST', '/v1/posts', {
      key: first,
      body: { platform: 'mastodon', body: 'Not allowed' },
    });
    expect([refused.status, refused.body.code]).toEqual([403, 'missing_scope']);
    // The challenge says which scope would do, so a client can ask the person for it.
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="publish"',
    );
    const gql = await call(server, 'POST', '/graphql', {
      key: first,
      body: { query: '{ me { email scopes } }' },
    });
    expect(gql.body.data.me).toEqual({ email: acct.email, scopes: ['read'] });

    // A refresh: a new access token and a new refresh token; the old refresh token is spent.
    const oldRefresh = client.saved!.refresh_token!;
    expect(await auth(client, { serverUrl: mcpUrl })).toBe('AUTHORIZED');
    expect(client.saved!.access_token).not.toBe(first);
    expect(client.saved!.refresh_token).not.toBe(oldRefresh);
    expect((await call(server, 'GET', '/v1/me', { key: client.saved!.access_token })).status).toBe(
      200,
    );

    // The person revokes the client in the dashboard: the very next request fails.
    const csrf = (await call(server, 'GET', '/app/api/session', { headers: { cookie } })).body
      .csrf_token;
    const listed = await call(server, 'GET', '/app/api/oauth/clients', { headers: { cookie } });
    expect(listed.body).toEqual([
      expect.objectContaining({ client_name: 'Test MCP client', scopes: ['read'] }),
    ]);
    expect(listed.body[0].last_used_at).not.toBeNull();
    const revoked = await call(
      server,
      'DELETE',
      `/app/api/oauth/clients/${listed.body[0].grant_id}`,
      {
        headers: { cookie, origin: origin(), 'x-csrf-token': csrf },
      },
    );
    expect(revoked.status).toBe(204);
    const after = await call(server, 'GET', '/v1/me', { key: client.saved!.access_token });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
