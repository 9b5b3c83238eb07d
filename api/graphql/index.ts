// POST /graphql, the GraphQL beta (SPEC.md "GraphQL (beta)"), served by graphql-yoga inside
// Fastify. The bearer layer of REST runs first, so a bad key, a low plan or a spent budget
// fail before execution; scopes are checked per field by the resolvers.
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import { GraphQLError } from 'graphql';
import { createYoga, maskError, type Plugin } from 'graphql-yoga';
import { DomainError } from '../../core/kernel/errors.ts';
import { type AuthContext, authenticateBearer, principalOf } from '../auth.ts';
import { asDomainError, DATABASE_RETRY_AFTER_S, knownFailure, sendError } from '../errors.ts';
import { requestErrorBody, toGraphQLError } from './errors.ts';
import { GRAPHQL_LIMITS, LIMIT_RULES } from './limits.ts';
import { type GraphQLContext, schema } from './schema.ts';

const limitRules: Plugin = {
  onValidate: ({ addValidationRule }) => {
    for (const rule of LIMIT_RULES) addValidationRule(rule);
  },
};

/** Whether an executed request's errors include a database that could not be reached. */
const lostDatabase = (errors: unknown) =>
  Array.isArray(errors) &&
  errors.some(
    (e: { extensions?: { code?: unknown } }) => e?.extensions?.code === 'database_unavailable',
  );

export const graphqlRoutes: FastifyPluginAsync<{ auth: AuthContext }> = async (app, { auth }) => {
  const yoga = createYoga<GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: false,
    landingPage: false,
    batching: false,
    logging: false,
    plugins: [limitRules],
    maskedErrors: {
      maskError: (error, message, isDev) => {
        const original = error instanceof GraphQLError ? error.originalError : error;
        const known =
          original instanceof DomainError
            ? original
            : knownFailure(original, app.log, { surface: 'graphql' });
        if (known) return toGraphQLError(known, error instanceof GraphQLError ? error : undefined);
        // GraphQL's own refusal of the request (a variable missing or not of its type, whose
        // cause is the scalar's GraphQLError): the client's mistake, answered as it is.
        if (error instanceof GraphQLError && (!original || original instanceof GraphQLError)) {
          app.log.debug({ graphql_error: error.message }, 'graphql request refused');
          return error;
        }
        app.log.error({ err: original }, 'graphql resolver failed');
        return maskError(error, message, isDev);
      },
    },
  });

  // Errors raised before yoga runs (auth, budget, a body that is not JSON) in GraphQL's shape.
  app.setErrorHandler((err, req, reply) =>
    sendError(reply, asDomainError(err as FastifyError, req), requestErrorBody),
  );

  app.post(
    '/graphql',
    {
      schema: { hide: true },
      onRequest: async (req, reply) => {
        await authenticateBearer(auth, req, reply);
      },
    },
    async (req, reply) => {
      // A JSON array is a batch, which yoga refuses itself; any other non-object has nothing
      // to run, and yoga would answer it with the JSON parser's message.
      if (typeof req.body !== 'object' || req.body === null)
        throw new DomainError(
          400,
          'invalid_request',
          'Send a JSON object with "query" and optionally "variables" and "operationName".',
        );
      const query = (req.body as { query?: unknown }).query;
      if (typeof query === 'string' && query.length > GRAPHQL_LIMITS.queryLength)
        throw new DomainError(
          400,
          'query_too_long',
          `The query string may hold at most ${GRAPHQL_LIMITS.queryLength} characters; it has ${query.length}. Pass dynamic content in variables.`,
        );
      // One JSON response whatever the client accepts: the beta serves no streams.
      req.headers.accept = 'application/json';
      const response = await yoga.handleNodeRequestAndResponse(req, reply, {
        principal: principalOf(req),
        pool: auth.pool,
      });
      // Yoga answers JSON to every JSON object sent with this Accept; anything else is a
      // request it refused without a body, passed on with its status.
      if (!response.headers.get('content-type')?.includes('json'))
        throw new DomainError(
          Math.max(400, response.status),
          'invalid_request',
          'The request is not a GraphQL request.',
        );
      const result = (await response.json()) as { data?: unknown; errors?: unknown };
      // No `data` means the request never executed (syntax, validation, limits, variables).
      // Yoga answers those 200 for Accept: application/json (and so for */* or none) and 400
      // only for application/graphql-response+json, without `data` either way; the beta
      // answers 400 with `data: null` whatever the client accepts.
      const executed = 'data' in result;
      reply.code(executed ? response.status : Math.max(400, response.status));
      // A resolver that lost the database answers as REST does: a retry can help.
      if (lostDatabase(result.errors)) {
        reply.code(503);
        reply.header('Retry-After', String(DATABASE_RETRY_AFTER_S));
      }
      reply.type('application/json');
      return executed ? result : { data: null, ...result };
    },
  );

  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE'],
    url: '/graphql',
    schema: { hide: true },
    handler: async () => {
      throw new DomainError(
        405,
        'method_not_allowed',
        'GraphQL takes POST requests only.',
        {},
        {
          Allow: 'POST',
        },
      );
    },
  });
};
