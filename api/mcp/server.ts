// One MCP server per request (the SDK forbids reusing one across requests; we are stateless):
// the handlers are thin, everything costly (schemas, listings) was compiled at start.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  type Result,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import { assertRequirement } from '../../core/auth/service.ts';
import { requireOwnedBrand } from '../../core/brands/service.ts';
import { DomainError, ValidationFailed, type ValidationIssue } from '../../core/kernel/errors.ts';
import { closestMatch, parseInput } from '../../core/validation.ts';
import { databaseOutage, errorMembers, knownFailure } from '../errors.ts';
import { PROMPTS } from './prompts.ts';
import type { ToolContext, ToolRegistry } from './registry.ts';
import { type Attachment, errorResult, fitsInResult, toolResult } from './results.ts';

/** The revisions SPEC.md supports, newest first; initialize falls back to the newest. */
export const PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'];

const SERVER_INFO = { name: 'social-publishing-service', version: '1.0.0' };
const INSTRUCTIONS =
  'Social publishing: draft, review, schedule and inspect posts for the brands of this account. Start with whoami and list_brands. create_post makes drafts; schedule_post queues them. A 200 response does not prove a post was scheduled: check its status.';

const issueText = (issues: ValidationIssue[]) =>
  issues.map((i) => (i.loc.length ? `${i.loc.join('.')}: ${i.msg}` : i.msg)).join('; ');

/** parseInput as a protocol error: -32602 naming each field and what to change. */
function parseParams<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  try {
    return parseInput(schema, value);
  } catch (err) {
    if (err instanceof ValidationFailed)
      throw new McpError(ErrorCode.InvalidParams, `Invalid ${what}: ${issueText(err.issues)}`);
    throw err;
  }
}

type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string>; params: z.ZodType }>;

// A server is built for every request (buildMcpServer), so what it is built from is made once:
// building these schemas and the SDK's default JSON Schema validator (an Ajv instance, which
// only server-to-client elicitation would use) took a sixth of a tools/call (profiled).
const METHOD_SCHEMAS = new Map<string, z.ZodType>();
const methodSchema = (method: string) => {
  let schema = METHOD_SCHEMAS.get(method);
  if (!schema) {
    schema = z.object({ method: z.literal(method) }).loose();
    METHOD_SCHEMAS.set(method, schema);
  }
  return schema;
};
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();
type Extra = RequestHandlerExtra<never, never>;

/**
 * Installs a request handler whose params are checked here. The SDK's own check throws a bare
 * ZodError, which goes out as -32603 "internal error" carrying zod's dump (and Server's extra
 * tools/call check words its -32602 as a dump too); ours answers -32602 naming the field.
 */
function handle<S extends RequestSchema>(
  server: Server,
  schema: S,
  run: (params: z.output<S['shape']['params']>, extra: Extra) => Promise<Result>,
) {
  const method = schema.shape.method.value;
  // Protocol's method, not Server's override: that one re-parses tools/call with the SDK schema.
  Protocol.prototype.setRequestHandler.call(
    server as unknown as Protocol<never, never, Result>,
    methodSchema(method) as never,
    ((request: { params?: unknown }, extra: Extra) =>
      run(
        parseParams(schema.shape.params, request.params, `params for ${method}`) as z.output<
          S['shape']['params']
        >,
        extra,
      )) as never,
  );
}

async function callTool(
  registry: ToolRegistry,
  ctx: Omit<ToolContext, 'progress' | 'signal' | 'attachImage' | 'attachText'>,
  name: string,
  args: unknown,
  extra: { signal: AbortSignal; progress: ToolContext['progress'] },
): Promise<CallToolResult> {
  const tool = registry.find(name, ctx.principal);
  if (!tool) {
    const match = closestMatch(
      name,
      registry.list(ctx.principal).map((t) => t.name),
    );
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown tool: ${name}${match ? `; did you mean ${match}?` : ''} (tools/list lists them)`,
    );
  }
  try {
    assertRequirement(ctx.principal, { scope: tool.scope, feature: tool.feature });
    const parsed = parseParams(tool.input, args ?? {}, `arguments for ${name}`);
    // What a tool attaches after its JSON must fit the whole result: it asks with its answer.
    const attached: Attachment[] = [];
    const attach = (item: Attachment, answer: Record<string, unknown>) => {
      if (!fitsInResult(answer, attached, item)) return false;
      attached.push(item);
      return true;
    };
    const attachImage: ToolContext['attachImage'] = (data, mimeType, answer) =>
      attach({ type: 'image', data: data.toString('base64'), mimeType }, answer);
    const attachText: ToolContext['attachText'] = (text, answer) =>
      attach({ type: 'text', text }, answer);
    const answer = await tool.run({ ...ctx, ...extra, attachImage, attachText }, parsed);
    return toolResult(answer as Record<string, unknown>, attached);
  } catch (thrown) {
    if (thrown instanceof McpError) throw thrown;
    // A foreign key's refusal is not_found, a database out of reach the REST 503 as a result:
    // the client retries after _meta.retry_after (an HTTP 503 would reach an MCP client as a
    // broken transport).
    const err = knownFailure(thrown, ctx.log, { tool: name }) ?? thrown;
    if (!(err instanceof DomainError)) {
      // Its message may name the server's files or tables: logged here, not answered.
      ctx.logFailure?.(err, name);
      throw new McpError(
        ErrorCode.InternalError,
        `${name} failed unexpectedly; try again, and if it fails again, tell the operator (the server log has the details).`,
      );
    }
    // A tool failure, not a protocol one: the model reads the message and can adjust, and a
    // client reads the REST body's machine-readable members from _meta (CONTRACT.md).
    // Its _meta: what the REST body says to a program rather than a person (code, extra
    // members such as required_scope or current_version, a validation failure's issues).
    // Not structuredContent: the SDK client checks that against the tool's output schema even
    // on errors. Capped like a success (40 KB).
    return errorResult(
      err instanceof ValidationFailed
        ? { code: err.code, message: err.message, meta: { code: err.code }, issues: err.issues }
        : { code: err.code, message: err.message, meta: { ...errorMembers(err), code: err.code } },
    );
  }
}

/**
 * A prompt's brand_id is the caller's, as a tool's is: another account's brand answers like a
 * missing one, -32602 with `data.code` not_found (a prompt has no isError result).
 */
async function promptBrand(
  ctx: Omit<ToolContext, 'progress' | 'signal' | 'attachImage' | 'attachText'>,
  brandId: string,
) {
  try {
    await requireOwnedBrand(ctx.pool, ctx.principal.accountId, brandId);
  } catch (thrown) {
    const err = databaseOutage(thrown, ctx.log, { prompt: true }) ?? thrown;
    if (!(err instanceof DomainError)) throw err;
    throw new McpError(
      err.status === 503 ? ErrorCode.InternalError : ErrorCode.InvalidParams,
      `${err.code}: ${err.message}`,
      { ...errorMembers(err), code: err.code },
    );
  }
}

const CAPABILITIES = { tools: { listChanged: false }, prompts: { listChanged: false } };

export function buildMcpServer(
  registry: ToolRegistry,
  ctx: Omit<ToolContext, 'progress' | 'signal' | 'attachImage' | 'attachText'>,
) {
  const server = new Server(SERVER_INFO, {
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
  });
  handle(server, InitializeRequestSchema, async (params) => ({
    protocolVersion: PROTOCOL_VERSIONS.includes(params.protocolVersion)
      ? params.protocolVersion
      : PROTOCOL_VERSIONS[0]!,
    capabilities: CAPABILITIES,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
  }));
  handle(server, PingRequestSchema, async () => ({}));
  handle(server, ListToolsRequestSchema, async () => ({
    tools: registry.list(ctx.principal),
  }));
  handle(server, CallToolRequestSchema, async (params, extra) => {
    const token = params._meta?.progressToken;
    const progress: ToolContext['progress'] = async (done, total, message) => {
      if (token === undefined) return;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: done, total, message },
      } as never);
    };
    return callTool(registry, ctx, params.name, params.arguments, {
      signal: extra.signal,
      progress,
    });
  });
  handle(server, ListPromptsRequestSchema, async () => ({
    prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args,
    })),
  }));
  handle(server, GetPromptRequestSchema, async (params) => {
    const prompt = PROMPTS.find((p) => p.name === params.name);
    if (!prompt) {
      const names = PROMPTS.map((p) => p.name);
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown prompt: ${params.name}; the prompts are ${names.join(', ')}`,
      );
    }
    // An argument sent empty is one not given (clients send every field of their form).
    const given = Object.fromEntries(
      Object.entries(params.arguments ?? {}).filter(([, v]) => v !== ''),
    );
    const args = parseParams(prompt.input, given, `arguments for prompt ${prompt.name}`);
    if (args.brand_id) await promptBrand(ctx, args.brand_id);
    return {
      description: prompt.description,
      messages: [{ role: 'user', content: { type: 'text', text: prompt.text(args) } }],
    };
  });
  return server;
}
