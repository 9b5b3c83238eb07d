// The engagement tests' share of the service: a local Mastodon instance and a worker beside the
// server (useEngagement, started and stopped with the file), and brands connected to the
// instance, each with a token of its own, one published post, a key of `scopes`, an MCP client
// and its account's mentions reading.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll } from 'vitest';
import {
  type CredentialsKey,
  credentialsKey,
  sealCredentials,
} from '../../core/connections/credentials.ts';
import { collectAccountInbound } from '../../core/engagement/collect.ts';
import type { Scope } from '../../core/kernel/plans.ts';
import type { WorkerRunner } from '../../workers/index.ts';
import { type LocalMastodon, startLocalMastodon } from './mastodonInstance.ts';
import { connectMcp } from './mcpClient.ts';
import { readingDeps } from './reading.ts';
import { makeConnectedAccount } from './server.ts';
import { startWorkerBeside, type TestServer, type TestWorkerOptions } from './service.ts';

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

/**
 * A local Mastodon instance and a worker (with the built-in connectors and a credentials key
 * of its own) beside `server` for the file's tests, and its brands.
 */
export function useEngagement(
  server: TestServer,
  keySeed: number,
  /** More for the worker (a model server), read when it starts. */
  worker?: () => TestWorkerOptions,
) {
  const key = credentialsKey(Buffer.alloc(32, keySeed).toString('base64'));
  let instance: LocalMastodon | undefined;
  let running: WorkerRunner | undefined;
  const fixture = engagementFixture(server, () => instance!, key);
  beforeAll(async () => {
    instance = await startLocalMastodon();
    running = await startWorkerBeside(server, {
      ...worker?.(),
      credentialsKey: key,
      storage: true,
    });
  });
  afterAll(async () => {
    await fixture.close();
    await running?.stop();
    await instance?.close();
  });
  return {
    ...fixture,
    get instance() {
      return instance!;
    },
  };
}
