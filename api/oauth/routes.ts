// OAuth for MCP clients: the provider's endpoints under /oauth (oidc-provider runs
// them itself, on the raw request), its metadata at both well-known addresses (RFC 8414 and
// OpenID discovery), the protected resource's metadata (RFC 9728), and the consent page's
// data and answer behind the dashboard session. Domain: core/oauth/.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import { SCOPES } from '../../core/kernel/plans.ts';
import { ConsentDecision, ConsentView, resourceOf } from '../../core/oauth/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { dashboardGuard } from '../session/guard.ts';
import { requireSession, type SessionDeps } from '../session/sessionCookie.ts';
import { authorizationLimit, logoutLimit, registrationLimit } from './addressLimits.ts';
import { consentView, decideConsent } from './consent.ts';
import { OAUTH_ROUTES } from './provider.ts';

export type OAuthRouteDeps = SessionDeps & { provider: Provider };

const tags = ['oauth'];

export const oauthRoutes: FastifyPluginAsync<OAuthRouteDeps> = async (base, deps) => {
  const { provider, pool, config } = deps;
  const baseUrl = config.publicBaseUrl;

  // The provider reads its own bodies: in this scope nothing is parsed before it runs.
  await base.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
    const handle = provider.callback();
    const pass = async (req: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      handle(req.raw, reply.raw);
    };
    // The provider's router ignores letter case and a trailing slash, so it would answer
    // /oauth/AUTHORIZE or /oauth/register/ past the bounds below, which hold the canonical
    // spelling. Only that spelling reaches it: each endpoint is a route of its own (no
    // catch-all), and a request whose raw path is not exactly its route's (what Fastify
    // decoded or forgave: %61, an empty parameter) is 404 before anything counts or runs.
    const canonical = new Map<string, RegExp>();
    scope.addHook('onRoute', ({ url }) => {
      const pattern = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[A-Za-z0-9_-]+');
      canonical.set(url, new RegExp(`^${pattern}$`));
    });
    scope.addHook('onRequest', (req, reply, done) => {
      const path = req.raw.url?.split('?', 1)[0] ?? '';
      if (canonical.get(req.routeOptions.url ?? '')?.test(path)) done();
      else reply.callNotFound();
    });
    // What stores rows for anyone who asks first passes our bounds per address
    // (./addressLimits.ts): registration (its size, too), authorization requests and the
    // logout page.
    const admit = registrationLimit();
    const register = async (req: FastifyRequest) => {
      const length = req.headers['content-length'];
      admit(req.ip, length === undefined ? undefined : Number(length));
    };
    const authorize = authorizationLimit();
    const logout = logoutLimit();
    // The provider's endpoints with the methods it answers for the features ./provider.ts
    // turns on (GET only where its enableHttpPostMethods, off, would add POST); OPTIONS are
    // CORS preflights for browser clients.
    const endpoints: [string, HTTPMethods[], ((req: FastifyRequest) => Promise<void>)?][] = [
      [OAUTH_ROUTES.authorization, ['GET'], async (req) => authorize(req.ip)],
      // Back from the consent page, with the interaction's id.
      [`${OAUTH_ROUTES.authorization}/:uid`, ['GET']],
      [OAUTH_ROUTES.token, ['POST', 'OPTIONS']],
      [OAUTH_ROUTES.revocation, ['POST', 'OPTIONS']],
      [OAUTH_ROUTES.jwks, ['GET', 'OPTIONS']],
      [OAUTH_ROUTES.registration, ['POST'], register],
      [`${OAUTH_ROUTES.registration}/:clientId`, ['GET']],
      [OAUTH_ROUTES.end_session, ['GET'], async (req) => logout(req.ip)],
      [`${OAUTH_ROUTES.end_session}/confirm`, ['POST']],
      [`${OAUTH_ROUTES.end_session}/success`, ['GET']],
    ];
    for (const [url, method, onRequest] of endpoints)
      scope.route({ method, url, schema: { hide: true }, onRequest, handler: pass });
    scope.get('/.well-known/openid-configuration', { schema: { hide: true } }, pass);
    // RFC 8414's address for the same document (oidc-provider serves OpenID discovery's).
    scope.get(
      '/.well-known/oauth-authorization-server',
      { schema: { hide: true } },
      (req, reply) => {
        req.raw.url = '/.well-known/openid-configuration';
        return pass(req, reply);
      },
    );
  });

  const app = base.withTypeProvider<ZodTypeProvider>();
  const resourceMetadata = {
    resource: resourceOf(baseUrl),
    authorization_servers: [baseUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Social publishing service',
    resource_documentation: `${baseUrl}/docs`,
  };
  for (const url of [
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/mcp',
  ])
    app.get(
      url,
      {
        schema: {
          summary: 'OAuth protected resource metadata (RFC 9728): where MCP clients sign in',
          tags,
          response: {
            200: z.object({
              resource: z.string(),
              authorization_servers: z.array(z.string()),
              scopes_supported: z.array(z.string()),
              bearer_methods_supported: z.array(z.string()),
              resource_name: z.string(),
              resource_documentation: z.string(),
            }),
          },
        },
      },
      async (_req, reply) => {
        reply.header('access-control-allow-origin', '*');
        return resourceMetadata;
      },
    );

  // The consent page (served at /oauth/consent/{uid} by api/web.ts) reads and answers here:
  // under the page's own path, where the provider's interaction cookie is sent.
  const session = requireSession(pool);
  const guard = dashboardGuard(config);
  const Params = z.object({ uid: z.string().max(100) }).strict();
  app.get(
    '/oauth/consent/:uid/details',
    {
      preHandler: session,
      schema: {
        summary: 'What the client asks for, for the consent page',
        tags,
        security: [{ session: [] }],
        params: Params,
        response: { 200: ConsentView, 401: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      return consentView(provider, pool, { req: req.raw, res: reply.raw }, principalOf(req));
    },
  );
  app.post(
    '/oauth/consent/:uid/decision',
    {
      onRequest: guard,
      preHandler: session,
      schema: {
        summary:
          'Allow (with the scopes left ticked and a brand) or deny; answers where to go next',
        tags,
        security: [{ session: [] }],
        params: Params,
        body: ConsentDecision,
        response: {
          200: z.object({ redirect_to: z.string() }),
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req, reply) => ({
      redirect_to: await decideConsent(
        provider,
        pool,
        { req: req.raw, res: reply.raw },
        principalOf(req),
        baseUrl,
        req.body,
      ),
    }),
  );
};
