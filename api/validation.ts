// Fastify's validator for every route schema: core/validation.ts's parseInput, so REST and
// the session routes refuse unstorable text and word their 422s as GraphQL and MCP do.
import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { ValidationFailed } from '../core/kernel/errors.ts';
import { parseInput } from '../core/validation.ts';

/** Where each part of a request sits in an issue's `loc` (CONTRACT.md). */
const LOCATION: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    try {
      return { value: parseInput(schema, data, [LOCATION[httpPart ?? 'body'] ?? 'body']) };
    } catch (err) {
      // Fastify hands an Error result to the error handler as it is: a 422 with our issues.
      if (err instanceof ValidationFailed) return { error: err };
      throw err;
    }
  };
