// The platforms that fetch media from PUBLIC_BASE_URL (Threads, Instagram) warn,
// in list_accounts and on the Accounts page's data, when that address is not reachable from
// the internet; the others, and every platform behind a public address, do not.
import { describe, expect, it } from 'vitest';
import type { PlatformState } from '../../core/connections/schema.ts';
import { callTool } from '../support/engagement.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { signedInDashboard } from '../support/server.ts';
import { useService } from '../support/service.ts';

const FETCHERS = ['threads', 'instagram'];

const warnings = (platforms: PlatformState[]) =>
  Object.fromEntries(platforms.map((p) => [p.platform, p.media_warning]));

describe('PUBLIC_BASE_URL on loopback (the default)', () => {
  const svc = useService({ account: { scopes: ['read'] } });

  const expectWarned = (by: Record<string, string | null>) => {
    for (const [platform, warning] of Object.entries(by)) {
      if (FETCHERS.includes(platform)) {
        expect(warning).toContain(`PUBLIC_BASE_URL (${svc.server.config.publicBaseUrl})`);
        expect(warning).toContain('not reachable from the internet');
      } else expect(warning, platform).toBeNull();
    }
  };

  it('list_accounts names PUBLIC_BASE_URL on Threads and Instagram only', async () => {
    const client = await connectMcp(svc.server, svc.key);
    try {
      const { data } = await callTool(client, 'list_accounts', {});
      expect(data.platforms).toHaveLength(10);
      expectWarned(warnings(data.platforms));
    } finally {
      await client.close();
    }
  });

  it("the Accounts page's data (GET /app/api/platforms) says the same", async () => {
    const d = await signedInDashboard(svc.server);
    const res = await d.send('GET', '/platforms');
    expect(res.status).toBe(200);
    expectWarned(warnings(res.body));
  });
});

describe('PUBLIC_BASE_URL on a public name', () => {
  const svc = useService({
    env: { PUBLIC_BASE_URL: 'https://social.example.com' },
    account: { scopes: ['read'] },
  });

  it('no platform warns, in list_accounts nor on the Accounts page', async () => {
    const client = await connectMcp(svc.server, svc.key);
    try {
      const { data } = await callTool(client, 'list_accounts', {});
      expect(Object.values(warnings(data.platforms)).every((w) => w === null)).toBe(true);
    } finally {
      await client.close();
    }
    const d = await signedInDashboard(svc.server);
    const res = await d.send('GET', '/platforms');
    expect(res.status).toBe(200);
    expect(Object.values(warnings(res.body)).every((w) => w === null)).toBe(true);
  });
});
