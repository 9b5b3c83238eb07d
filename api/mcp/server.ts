// One MCP server per request (the SDK forbids reusing one across requests; we are stateless):
// the handlers are thin, everything costly (schemas, listings) was compiled at start.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { assertRequirement } from '../../core/auth/access.ts';
import { DomainError } from '../../core/errors.ts';
import { PROMPTS } from './prompts.ts';
import type { ToolContext, ToolRegistry } from './registry.ts';
import { capResult } from './results.ts';

/** The revisions SPEC.md supports, newest first; initialize falls back to the newest. */
export const PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'];

const SERVER_INFO = { name: 'social-publishing-service', version: '1.0.0' };
const INSTRUCTIONS =
  'Social publishing: draft, review, schedule and inspect posts for the brands of this account. Start with whoami and list_brands. create_post makes drafts; schedule_post queues them. A 200 response does not prove a post was scheduled: check its status.';

const issueText = (issues: { path: PropertyKey[]; message: string }[]) =>
  issues.map((i) => `${i.path.map(String).join('.') || '(arguments)'}: ${i.message}`).join('; ');

async function callTool(
  registry: ToolRegistry,
  ctx: Omit<ToolContext, 'progress' | 'signal' | 'attachImage'>,
  name: string,
  args: unknown,
  extra: { signal: AbortSignal; progress: ToolContext['progress'] },
): Promise<CallToolResult> {
  const tool = registry.find(name, ctx.principal);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  try {
    assertRequirement(ctx.principal, { scope: tool.scope, feature: tool.feature });
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid arguments for ${name}: ${issueText(parsed.error.issues)}`,
      );
    const images: { type: 'image'; data: string; mimeType: string }[] = [];
    const attachImage = (data: Buffer, mimeType: string) => {
      images.push({ type: 'image', data: data.toString('base64'), mimeType });
    };
    const { result, text } = capResult(
      (await tool.run({ ...ctx, ...extra, attachImage }, parsed.data)) as Record<string, unknown>,
    );
    return { content: [{ type: 'text', text }, ...images], structuredContent: result };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    // A tool failure, not a protocol one: the model reads the message and can adjust.
    return { isError: true, content: [{ type: 'text', text: `${err.code}: ${err.message}` }] };
  }
}

const CAPABILITIES = { tools: { listChanged: false }, prompts: { listChanged: false } };

export function buildMcpServer(
  registry: ToolRegistry,
  ctx: Omit<ToolContext, 'progress' | 'signal' | 'attachImage'>,
) {
  const server = new Server(SERVER_INFO, {
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(InitializeRequestSchema, async (req) => ({
    protocolVersion: PROTOCOL_VERSIONS.includes(req.params.protocolVersion)
      ? req.params.protocolVersion
      : PROTOCOL_VERSIONS[0]!,
    capabilities: CAPABILITIES,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
  }));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: registry.list(ctx.principal),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const token = req.params._meta?.progressToken;
    const progress: ToolContext['progress'] = async (done, total, message) => {
      if (token === undefined) return;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: done, total, message },
      });
    };
    return callTool(registry, ctx, req.params.name, req.params.arguments, {
      signal: extra.signal,
      progress,
    });
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args,
    })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    const prompt = PROMPTS.find((p) => p.name === req.params.name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`);
    const args = req.params.arguments ?? {};
    const missing = prompt.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
    if (missing.length)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Missing prompt arguments: ${missing.join(', ')}`,
      );
    return {
      description: prompt.description,
      messages: [{ role: 'user', content: { type: 'text', text: prompt.text(args) } }],
    };
  });
  return server;
}
