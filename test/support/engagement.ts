// A brand for the engagement tests: connected to a local Mastodon instance with a token of its
// own, one published post of its, a key of `scopes` and an MCP client (closed with the
// fixture's `close`), and its account's mentions reading.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Scope } from '../../core/accounts/plans.ts';
import { type CredentialsKey, sealCredentials } from '../../core/connections/credentials.ts';
import { collectAccountInbound } from '../../core/engagement/collect.ts';
import type { LocalMastodon } from './mastodonInstance.ts';
import { connectMcp } from './mcpClient.ts';
import { readingDeps } from './reading.ts';
import { makeConnectedAccount } from './server.ts';
import type { TestServer } from './service.ts';

export type ToolAnswer = { isError?: boolean; data: any; text: string };

/** Calls a tool with the client; answers its structured result and its text. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const res = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: any;
    content: { text?: string }[];
  };
  return { isError: res.isError, data: res.structuredContent, text: res.content[0]?.text ?? '' };
}

let tokens = 0;

export function engagementFixture(
  server: TestServer,
  instance: () => LocalMastodon,
  key: CredentialsKey,
) {
  const clients: Client[] = [];
  const deps = () => readingDeps(server, key);
  return {
    deps,
    close: async () => {
      for (const c of clients.splice(0)) await c.close();
    },
    async connect(apiKey: string) {
      const client = await connectMcp(server, apiKey, 'engagement-test');
      clients.push(client);
      return client;
    },
    async brand(scopes: Scope[] = ['read', 'generate', 'engage']) {
      const token = `token-${process.pid}-${++tokens}`;
      const made = await makeConnectedAccount(server.pool, 'mastodon', {
        scopes,
        credentials: sealCredentials(key, { instance: instance().url, access_token: token }),
      });
      const ourExternal = `ours-${token}`;
      const { rows } = await server.pool.query(
        `insert into posts (account_id, brand_id, platform, kind, status, body, external_post_id,
           published_at)
         values ($1, $2, 'mastodon', 'text', 'published', 'Our spring menu is out', $3, now())
         returning id::text`,
        [made.acct.accountId, made.acct.brandId, ourExternal],
      );
      const client = await connectMcp(server, made.key, 'engagement-test');
      clients.push(client);
      return {
        ...made,
        token,
        postId: rows[0].id as string,
        ourExternal,
        client,
        tool: (name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> =>
          callTool(client, name, args),
        collect: () => collectAccountInbound(deps(), String(made.connected.id)),
      };
    },
  };
}
