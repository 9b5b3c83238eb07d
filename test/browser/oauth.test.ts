// An MCP client signing in by OAuth, the person's side in Chromium: the client's
// authorization address opens the sign-in page (no session yet), which comes back to the
// consent page; the person unticks a scope and allows; the browser is sent back to the client
// with a code, which the MCP SDK exchanges. The app is then listed under Apps and revoked.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, freePort, screenshot, useBrowser } from '../support/browser.ts';
import { MemoryOAuthClient } from '../support/oauth.ts';
import { call, makeAccount } from '../support/server.ts';
import { useServer } from '../support/service.ts';

let port = 0;
beforeAll(async () => {
  port = await freePort();
});
const server = useServer(() => ({ port, env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } }));
const browser = useBrowser();

describe('OAuth consent in Chromium', () => {
  it('signs in, comes back to the consent page, allows read only, and revokes from Apps', async () => {
    const acct = await makeAccount(server.pool, 'plus');
    const mcpUrl = new URL(`${server.baseUrl}/mcp`);
    // The client's redirect address: a receiver on loopback that keeps what it was sent.
    let callback: URL | undefined;
    const receiver = createServer((req, res) => {
      const url = new URL(req.url!, 'http://127.0.0.1');
      if (url.pathname === '/callback') callback = url;
      res.end('back at the client');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const redirect = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
    const client = new MemoryOAuthClient('Inspector', redirect);
    expect(await auth(client, { serverUrl: mcpUrl })).toBe('REDIRECT');

    const page = await browser.page(server.baseUrl);
    await page.goto(client.authorizationUrl!.toString());
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByLabel('E-mail').fill(acct.email);
    await page.getByLabel('Password').fill(acct.password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { name: 'Allow Inspector to use your account?' }).waitFor();
    await page.getByText(new URL(redirect).host).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'oauth-consent');
    for (const scope of ['publish', 'media', 'generate', 'engage'])
      await page.getByRole('checkbox', { name: new RegExp(`^${scope}\\b`) }).uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('back at the client').waitFor();
    expect(callback?.searchParams.get('code')).toBeTruthy();

    expect(
      await auth(client, {
        serverUrl: mcpUrl,
        authorizationCode: callback!.searchParams.get('code')!,
      }),
    ).toBe('AUTHORIZED');
    const token = client.saved!.access_token;
    expect((await call(server, 'GET', '/v1/me', { key: token })).body.scopes).toEqual(['read']);

    await page.goto('/settings/apps');
    await page.getByRole('cell', { name: 'Inspector', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'read', exact: true }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'apps');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke Inspector' }).click();
    await page.getByText('No app signed in yet').waitFor();
    expect((await call(server, 'GET', '/v1/me', { key: token })).status).toBe(401);
    receiver.close();
  });
});
