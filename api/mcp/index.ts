// POST /mcp: the MCP server over Streamable HTTP, stateless (no Mcp-Session-Id). Origin,
// protocol revision and the bearer layer of REST are checked before anything is parsed as
// MCP; then one SDK server and transport serve this request only.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { MediaDeps } from '../../core/assets/service.ts';
import { assertWithinBudget, budgetHeaders } from '../../core/auth/service.ts';
import type { Config } from '../../core/config.ts';
import type { OAuthApps } from '../../core/connectors/schema.ts';
import type { RenderWaits } from '../../core/designs/service.ts';
import { DomainError } from '../../core/kernel/errors.ts';
import { type AuthContext, authenticateBearer, principalOf } from '../auth.ts';
import { asDomainError, errorMembers, sendError } from '../errors.ts';
import { exchangeJson } from './jsonTransport.ts';
import { compileTools, type ToolDefinition } from './registry.ts';
import { buildMcpServer, PROTOCOL_VERSIONS } from './server.ts';
import { ACCOUNT_TOOLS } from './tools/account.ts';
import { AGENT_TASK_TOOLS } from './tools/agentTasks.ts';
import { CANVAS_TOOLS } from './tools/canvas.ts';
import { DRAWING_TOOLS } from './tools/drawings.ts';
import { ENGAGEMENT_TOOLS } from './tools/engagement.ts';
import { GENERATION_TOOLS } from './tools/generation.ts';
import { INSIGHT_TOOLS } from './tools/insight.ts';
import { LIBRARY_TOOLS } from './tools/library.ts';
import { MEMORY_TOOLS } from './tools/memory.ts';
import { POST_TOOLS } from './tools/posts.ts';
import { VIDEO_TOOLS } from './tools/video.ts';

export type McpOptions = {
  /** Seconds between SSE keepalives during a slow call (10 s; tests shorten it). */
  keepAliveMs?: number;
  /** Tools added by tests (e.g. a deliberately slow one). */
  extraTools?: ToolDefinition[];
};

/**
 * JSON-RPC batches (allowed by revisions 2024-11-05 and 2025-03-26) run their calls at once, so
 * each message costs one request of the account's budget (the bearer layer counted the first),
 * and a batch holds at most this many.
 */
export const MAX_BATCH = 20;

async function chargeBatch(auth: AuthContext, req: FastifyRequest, reply: FastifyReply) {
  if (!Array.isArray(req.body) || req.body.length <= 1) return;
  if (req.body.length > MAX_BATCH)
    throw new DomainError(
      'batch_too_large',
      `A JSON-RPC batch holds at most ${MAX_BATCH} messages; send these ${req.body.length} in several requests.`,
    );
  const accountId = principalOf(req).accountId;
  const extra = req.body.length - 1;
  const window = await auth.budget.count(accountId, req.budget!.limit, extra);
  // Refused whole, the calls that never ran are given back: a client that retries with a
  // smaller batch still has them.
  if (window.used > window.limit) auth.budget.refund(accountId, extra, window);
  reply.headers(budgetHeaders(window));
  assertWithinBudget(window);
  req.budget = window;
}

/** A refusal before MCP dispatch, as a JSON-RPC error object (id unknown: null). */
const jsonRpcError = (err: DomainError) => ({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32000, message: err.message, data: { code: err.code, ...errorMembers(err) } },
});

/** Node's header map as web Headers, for the SDK's web-standard transport. */
function webHeaders(req: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** Every tool the service ships, in tools/list order (tests add their own beside them). */
export const SHIPPED_TOOLS = [
  ...ACCOUNT_TOOLS,
  ...POST_TOOLS,
  ...LIBRARY_TOOLS,
  ...CANVAS_TOOLS,
  ...DRAWING_TOOLS,
  ...INSIGHT_TOOLS,
  ...VIDEO_TOOLS,
  ...MEMORY_TOOLS,
  ...GENERATION_TOOLS,
  ...ENGAGEMENT_TOOLS,
  ...AGENT_TASK_TOOLS,
];

export const mcpRoutes: FastifyPluginAsync<
  {
    auth: AuthContext;
    config: Config;
    media: MediaDeps;
    renders: RenderWaits;
    oauthApps: OAuthApps;
  } & McpOptions
> = async (app, opts) => {
  const registry = compileTools([...SHIPPED_TOOLS, ...(opts.extraTools ?? [])]);
  const ownOrigin = new URL(opts.config.publicBaseUrl).origin;
  const keepAliveMs = opts.keepAliveMs ?? 10_000;

  app.setErrorHandler((err, req, reply) =>
    sendError(reply, asDomainError(err as FastifyError, req), jsonRpcError),
  );

  const checkOrigin = async (req: FastifyRequest) => {
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== ownOrigin)
      throw new DomainError(
        'origin_mismatch',
        `Origin ${origin} may not call this server; send Origin ${ownOrigin} (PUBLIC_BASE_URL) or none.`,
      );
  };
  const checkProtocolVersion = async (req: FastifyRequest) => {
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !PROTOCOL_VERSIONS.includes(String(version)))
      throw new DomainError(
        'unsupported_protocol_version',
        `MCP-Protocol-Version ${version} is not supported; use one of ${PROTOCOL_VERSIONS.join(', ')}.`,
      );
  };

  app.post(
    '/mcp',
    {
      schema: { hide: true },
      onRequest: [
        checkOrigin,
        checkProtocolVersion,
        async (req, reply) => {
          await authenticateBearer(opts.auth, req, reply);
        },
      ],
    },
    async (req, reply) => {
      await chargeBatch(opts.auth, req, reply);
      const server = buildMcpServer(registry, {
        pool: opts.auth.pool,
        media: opts.media,
        renders: opts.renders,
        generateTimeoutMs: opts.config.generateTimeoutMs,
        platformApps: opts.config.platformApps,
        oauthApps: opts.oauthApps,
        principal: principalOf(req),
        budget: req.budget!,
        logFailure: (err, tool) => req.log.error({ err, tool }, 'MCP tool failed'),
        log: req.log,
      });
      const streams = (req.headers.accept ?? '').includes('text/event-stream');
      if (!streams) {
        const exchange = await exchangeJson(req.body, async (transport) => {
          await server.connect(transport);
          return () => server.close();
        });
        reply.code(exchange.status);
        return exchange.status === 202 ? reply.send() : exchange.body;
      }
      // A client that accepts SSE gets the SDK's transport: progress and keepalives stream.
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: false,
        keepAliveMs,
      });
      await server.connect(transport);
      const headers = webHeaders(req);
      // The SDK also insists on application/json in Accept; SSE is what this client wants.
      headers.set('accept', 'application/json, text/event-stream');
      const response = await transport.handleRequest(
        new Request(new URL('/mcp', ownOrigin), { method: 'POST', headers }),
        { parsedBody: req.body },
      );
      const close = () => {
        void transport.close();
        void server.close();
      };
      reply.code(response.status);
      response.headers.forEach((value, name) => {
        reply.header(name, value);
      });
      if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) {
        const text = await response.text();
        close();
        return reply.send(text || null);
      }
      reply.raw.once('close', close);
      return reply.send(Readable.fromWeb(response.body as WebReadableStream));
    },
  );

  app.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH'],
    url: '/mcp',
    schema: { hide: true },
    handler: async () => {
      throw new DomainError(
        'method_not_allowed',
        'MCP takes POST requests only.',
        {},
        { headers: { Allow: 'POST' } },
      );
    },
  });
};
