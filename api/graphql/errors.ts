// Domain errors in GraphQL's shape: `errors[].message` plus `extensions.code` and the same
// extra members REST sends (required_scope, status, ...). Validation issues name GraphQL's
// arguments rather than the REST fields they were checked as.
import { GraphQLError } from 'graphql';
import {
  type DomainError,
  ValidationFailed,
  type ValidationIssue,
} from '../../core/kernel/errors.ts';

const ARGUMENT_NAMES: Record<string, string> = {
  status_filter: 'status',
  brand_id: 'brandId',
  schedule_at: 'scheduleAt',
  asset_ids: 'assetIds',
};

/** ['body', 'schedule_at'] (REST) → ['input', 'scheduleAt']; ['query', 'brand_id'] → ['brandId']. */
function graphqlLoc([where, ...path]: ValidationIssue['loc']): ValidationIssue['loc'] {
  const mapped = path.map((p) => (typeof p === 'string' ? (ARGUMENT_NAMES[p] ?? p) : p));
  return where === 'body' ? ['input', ...mapped] : mapped;
}

function extensions(err: DomainError): Record<string, unknown> {
  if (!(err instanceof ValidationFailed)) return { code: err.code, ...err.extra };
  return {
    code: err.code,
    detail: err.issues.map((i) => ({ ...i, loc: graphqlLoc(i.loc) })),
  };
}

function message(err: DomainError): string {
  if (!(err instanceof ValidationFailed)) return err.message;
  return err.issues.map((i) => `${graphqlLoc(i.loc).join('.')}: ${i.msg}`).join('; ');
}

/** A resolver's domain error as the GraphQL error the response carries. */
export function toGraphQLError(err: DomainError, at?: GraphQLError): GraphQLError {
  return new GraphQLError(message(err), {
    nodes: at?.nodes,
    path: at?.path,
    extensions: extensions(err),
  });
}

/** The body of a request refused before execution (auth, plan, budget, malformed body). */
export const requestErrorBody = (err: DomainError) => ({
  data: null,
  errors: [{ message: message(err), extensions: extensions(err) }],
});
