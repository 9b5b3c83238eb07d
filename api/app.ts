// Builds the Fastify app: external plugins, then the app-wide error shape, then the route
// folders (health, session routes, REST). Listening and shutdown belong to bin/start.ts.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { MediaDeps } from '../core/assets/service.ts';
import { assetUrlKey } from '../core/assets/service.ts';
import { createBudgetCounter, createKnownKeys } from '../core/auth/service.ts';
import type { Config } from '../core/config.ts';
import type { OAuthApps } from '../core/connectors/schema.ts';
import { OAUTH_APPS } from '../core/connectors/service.ts';
import type { Pool } from '../core/db/pool.ts';
import { createRenderWaits } from '../core/designs/service.ts';
import { mediaTools } from '../core/media/tools.ts';
import { newSigningKey, type SigningKey } from '../core/oauth/service.ts';
import { outboundPolicy } from '../core/outbound/guard.ts';
import { type Storage, storageFor } from '../core/storage/storage.ts';
import { AccessLog, forFastify } from './accessLog.ts';
import type { AuthContext } from './auth.ts';
import { designTemplateRoutes } from './designTemplates.ts';
import { errorHandler, frameworkErrors, notFoundHandler } from './errors.ts';
import { graphqlRoutes } from './graphql/index.ts';
import { healthRoutes } from './health.ts';
import { createInFlight, IN_FLIGHT_SLOT } from './inFlight.ts';
import { type McpOptions, mcpRoutes } from './mcp/index.ts';
import { signedMediaRoutes } from './media.ts';
import { createOAuthProvider } from './oauth/provider.ts';
import { oauthRoutes } from './oauth/routes.ts';
import { completeOpenapi } from './openapi.ts';
import { restRoutes } from './rest/index.ts';
import { sessionRoutes } from './session/index.ts';
import { validatorCompiler } from './validation.ts';
import { webRoutes } from './web.ts';

export type AppDeps = {
  pool: Pool;
  config: Config;
  /** Secret that signs dashboard session cookies. */
  sessionSecret: string;
  /** Secret that signs media addresses (/media/{id}?expires&sig); nothing else uses it. */
  mediaUrlSecret: string;
  /** The OAuth server's signing keys (DATA_DIR's); a fresh one for this process when omitted. */
  oauthSigningKeys?: SigningKey[];
  /** Where the app logs (core/logger.ts createLogger); nothing is logged without one. */
  logger?: FastifyBaseLogger;
  mcp?: McpOptions;
  /** Asset storage; the configured driver when omitted. */
  storage?: Storage;
  /** OAuth apps that stand in for the shipped ones (OAUTH_APPS) on their platforms (tests). */
  oauthApps?: OAuthApps;
};

/** A route as declared: its schema holds the zod schemas of its input and responses. */
export type DeclaredRoute = Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'>;

export type App = FastifyInstance & {
  auth: AuthContext;
  /** Every route in registration order (the response-schema and input fuzz tests walk them). */
  routes: DeclaredRoute[];
  /**
   * Requests not answered yet ("POST /v1/posts") and connections still open, for a shutdown
   * that overruns.
   */
  openWork(): { requests: string[]; connections: number };
};

/**
 * Config's TRUST_PROXY as Fastify takes it. A number of hops becomes proxy-addr's function
 * (hop i is trusted when i < n); Fastify's own number form trusts nothing.
 */
const trustedProxies = (trust: Config['trustProxy']) =>
  typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;

export async function buildApp(deps: AppDeps): Promise<App> {
  const app = Fastify({
    // The logger brings its own request serializer and redaction (core/logger.ts); without
    // one, nothing is logged and no request gets a logger of its own.
    loggerInstance: deps.logger && forFastify(deps.logger),
    genReqId: () => randomUUID(),
    // One access line a request, and a request's logger made only when it logs (accessLog.ts).
    logController: new AccessLog(),
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    // req.ip: the socket's address, or X-Forwarded-For's only behind proxies we were told of.
    trustProxy: trustedProxies(deps.config.trustProxy),
    frameworkErrors,
  }).withTypeProvider<ZodTypeProvider>();

  // JSON routes take JSON only (CONTRACT.md: a wrong content type is a 415). Fastify's
  // built-in text/plain parser would hand them a string, refused as a 422 "expected object"
  // (and GraphQL would answer it without a body). Routes that take raw bytes add their own.
  app.removeContentTypeParser('text/plain');

  const routes: DeclaredRoute[] = [];
  app.addHook('onRoute', ({ method, url, schema, config }) => {
    routes.push({ method, url, schema, config });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // Node's server.close() only reaps connections idle at that moment; a keep-alive connection
  // whose request is in flight would then linger until the client drops it, which a client
  // keeping its connections open may never do. So when closing begins, every response still
  // to be sent is told to hang up (Fastify answers later requests 503 with the same header);
  // a response whose headers went out before (a stream: an MCP call, a download) could not,
  // so once any response ends while closing, connections left idle are closed. Shutdown then
  // ends when the last request does. Nothing runs for this on a response sent before then.
  let closing = false;
  const inFlight = createInFlight();
  // What the hooks set on a request is declared up front, so every request of a plugin scope
  // is built with it and they share one shape; set later, in an order that differs by route
  // and path, they gave requests more shapes to tell apart.
  app.decorateRequest('principal', undefined);
  app.decorateRequest('budget', undefined);
  app.decorateRequest(IN_FLIGHT_SLOT, undefined);
  // Every request passes these hooks: callback style, so neither costs a promise. A request
  // whose client hung up is swept from the in-flight list by the list itself (api/inFlight.ts).
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    inFlight.add(reply);
    done();
  });
  app.addHook('onResponse', (req, _reply, done) => {
    inFlight.remove(req);
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const reply of inFlight.entries())
      if (!reply.raw.headersSent) reply.header('connection', 'close');
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Social Publishing Service',
        version: '1.0.0',
        description:
          'REST API (/v1) and the dashboard session routes. GraphQL (beta) is at /graphql and MCP at /mcp.',
      },
      servers: [{ url: deps.config.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'API key (sps_...)' },
          session: { type: 'apiKey', in: 'cookie', name: 'sps_session' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (doc) => ('openapiObject' in doc ? completeOpenapi(doc) : doc.swaggerObject),
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const storage = deps.storage ?? storageFor(deps.config);
  const tempDir = path.join(deps.config.dataDir, 'tmp');
  await app.register(healthRoutes, {
    pool: deps.pool,
    storageDirs: [tempDir, ...(storage.localRoot ? [storage.localRoot] : [])],
  });
  const auth: AuthContext = {
    pool: deps.pool,
    budget: createBudgetCounter(deps.pool, app.log),
    publicBaseUrl: deps.config.publicBaseUrl,
    known: createKnownKeys(),
  };
  app.addHook('onClose', () => auth.budget.stop());
  const media: MediaDeps = {
    pool: deps.pool,
    storage,
    publicBaseUrl: deps.config.publicBaseUrl,
    tempDir,
    outbound: outboundPolicy(deps.config, app.log),
    urlKey: assetUrlKey(deps.mediaUrlSecret),
    tools: mediaTools(deps.config),
  };
  const renders = createRenderWaits(deps.pool);
  // A test's OAuthApps stand in for the shipped ones on their platforms only.
  const oauthApps: OAuthApps = { ...OAUTH_APPS, ...deps.oauthApps };
  app.addHook('onClose', () => renders.notifications.close());
  await app.register(signedMediaRoutes, { media });
  await app.register(designTemplateRoutes);
  await app.register(webRoutes);
  await app.register(restRoutes, {
    auth,
    media,
    renders,
    generateTimeoutMs: deps.config.generateTimeoutMs,
    prefix: '/v1',
  });
  // The routes that read or set cookies (the dashboard's session, the OAuth sign-in), with the
  // cookie plugin in their scope only: a bearer request passes none of its hooks.
  await app.register(async (cookied) => {
    await cookied.register(fastifyCookie, { secret: deps.sessionSecret });
    await cookied.register(sessionRoutes, {
      pool: deps.pool,
      config: deps.config,
      media,
      renders,
      budget: auth.budget,
      oauthApps,
    });
    await cookied.register(oauthRoutes, {
      pool: deps.pool,
      config: deps.config,
      provider: createOAuthProvider({
        db: deps.pool,
        publicBaseUrl: deps.config.publicBaseUrl,
        cookieSecret: deps.sessionSecret,
        signingKeys: deps.oauthSigningKeys ?? [newSigningKey()],
        outbound: outboundPolicy(deps.config, app.log),
        behindProxy: deps.config.trustProxy !== false,
      }),
    });
  });
  await app.register(graphqlRoutes, { auth });
  await app.register(mcpRoutes, {
    auth,
    config: deps.config,
    media,
    renders,
    oauthApps,
    ...deps.mcp,
  });
  let connections = 0;
  app.server.on('connection', (socket) => {
    connections++;
    socket.once('close', () => connections--);
  });
  // Route templates, never query strings (a signed media address carries its signature there).
  const openWork = () => ({
    requests: inFlight
      .entries()
      .map(({ request: req }) => `${req.method} ${req.routeOptions.url ?? req.url.split('?')[0]}`),
    connections,
  });
  return Object.assign(app, { auth, routes, openWork });
}
