// MCP `tools/call list_posts` beside `GET /v1/posts` over the same 25 drafts, in one run.
// Target: MCP at >= 0.5 of REST.
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { createPost } from '../core/posts/service.ts';
import { type BenchService, fmt, load, mcpToolCall } from './support.ts';

export async function benchMcp(svc: BenchService, seconds: number) {
  const account = await createAccount(svc.pool, {
    email: `bench-mcp-${Date.now()}@example.com`,
    password: 'bench password',
    plan: 'business',
  });
  await setBudget(svc.pool, account.accountId, 100_000_000);
  const { key, id } = await createApiKey(svc.pool, account.accountId, { scopes: ['read'] });
  const caller = {
    accountId: account.accountId,
    selectedBrandId: account.brand.id,
    credential: { kind: 'api_key' as const, id },
  };
  for (let i = 0; i < 25; i++)
    await createPost(svc.pool, caller, {
      platform: 'mastodon',
      body: `Draft ${i} for the MCP bench`,
    });

  const auth = { authorization: `Bearer ${key}` };
  const mcp = mcpToolCall(key, 'list_posts', { limit: 25 });
  await load(`${svc.baseUrl}/mcp`, { ...mcp, seconds: 1 }); // warm-up
  await load(`${svc.baseUrl}/v1/posts?limit=25`, { headers: auth, seconds: 1 });
  const rest = await load(`${svc.baseUrl}/v1/posts?limit=25`, { headers: auth, seconds });
  const tools = await load(`${svc.baseUrl}/mcp`, { ...mcp, seconds });

  console.log('MCP tools/call list_posts vs GET /v1/posts (25 drafts)');
  console.log(`  GET /v1/posts      ${fmt(rest)}`);
  console.log(`  MCP list_posts     ${fmt(tools)}`);
  console.log(`  ratio              ${(tools.rps / rest.rps).toFixed(2)} (target >= 0.50)`);
  return { rest, tools, ratio: tools.rps / rest.rps };
}
