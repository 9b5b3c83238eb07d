// Domain errors: a status and a stable code, thrown by core/ and mapped to HTTP (and to
// GraphQL and MCP errors) by api/. core/ never builds HTTP responses itself.

export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };

export class DomainError extends Error {
  /** HTTP status the REST surface answers with. */
  readonly status: number;
  /** Stable machine-readable code, e.g. `missing_scope`. */
  readonly code: string;
  /** Extra members of the error body, e.g. `required_scope`. */
  readonly extra: Record<string, unknown>;
  /** Response headers that belong to this error, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.status = status;
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }
}

/** 422 whose `detail` is the list of issues (CONTRACT.md validation shape). */
export class ValidationFailed extends DomainError {
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[]) {
    super(422, 'validation_failed', issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.issues = issues;
  }
}

export const unauthenticated = (message = 'A valid bearer credential is required.') =>
  new DomainError(401, 'unauthenticated', message);

/** 403 missing_scope; the challenge names the scope, so an OAuth client can ask for it. */
export const missingScope = (scope: string) =>
  new DomainError(
    403,
    'missing_scope',
    `This operation needs the "${scope}" scope.`,
    { required_scope: scope },
    { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
  );

/** 403 plan_required: `what` needs `plan` (the operator raises it with the CLI). */
export const planRequired = (plan = 'plus', what = 'API, GraphQL and MCP access') =>
  new DomainError(
    403,
    'plan_required',
    `${what} needs the ${plan} plan or higher (the operator: npm run admin -- account plan --email E --plan ${plan}).`,
  );

/**
 * 403 plan_limit: the account keeps `limit` of `what`, the most its plan allows; `planNeeded`
 * is the lowest plan that allows one more.
 */
export const planLimit = (what: string, limit: number, planNeeded: string) =>
  new DomainError(
    403,
    'plan_limit',
    `This account keeps ${limit.toLocaleString('en-US')} ${what}, the most its plan allows; the ${planNeeded} plan allows more (the operator: npm run admin -- account plan --email E --plan ${planNeeded}).`,
    { limit, plan_needed: planNeeded },
  );

export const featureRequired = (feature: string) =>
  new DomainError(
    403,
    'feature_required',
    `This operation needs the "${feature}" feature; the operator grants it (npm run admin -- account feature --email ... --feature ${feature}).`,
    {
      feature,
    },
  );

export const forbidden = (code: string, message: string) => new DomainError(403, code, message);

export const notFound = (what: string) => new DomainError(404, 'not_found', `${what} not found.`);

export const conflict = (code: string, message: string, extra: Record<string, unknown> = {}) =>
  new DomainError(409, code, message, extra);

export const versionConflict = (current: number) =>
  new DomainError(
    409,
    'version_conflict',
    `The version you sent is stale (the current one is ${current}): re-read, reapply your change and resubmit.`,
    { current_version: current },
  );

/** A single-field 422, for rules a schema cannot express. */
export const invalid = (loc: (string | number)[], msg: string, type = 'value_error') =>
  new ValidationFailed([{ loc, msg, type }]);

export const tooManyRequests = (message: string, headers: Record<string, string>) =>
  new DomainError(429, 'rate_limited', message, {}, headers);

/**
 * A write a foreign key refused ("Key (brand_id)=(42) is not present in table "brands""), as
 * the not_found it stands for; undefined for anything else. Every operation checks the ids it
 * takes before it writes (a missing id answers exactly as another account's); this only keeps
 * a check that was missed, or a row deleted between the check and the write, from answering
 * 500. The surfaces log what it catches: a missed check is a bug to fix.
 */
export function missingReference(err: unknown): DomainError | undefined {
  const { code, detail } = (err ?? {}) as { code?: unknown; detail?: unknown };
  if (code !== '23503' || typeof detail !== 'string' || !detail.includes('is not present'))
    return undefined;
  const column = /^Key \((\w+)\)=/.exec(detail)?.[1];
  const what = column?.replace(/_id$/, '').replaceAll('_', ' ') || 'row';
  return notFound(what.charAt(0).toUpperCase() + what.slice(1));
}
