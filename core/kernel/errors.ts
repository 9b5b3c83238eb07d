// Domain errors: a status and a stable code, thrown by core/ and mapped to HTTP (and to
// GraphQL and MCP errors) by api/. core/ never builds HTTP responses itself. ERRORS is the one
// catalogue of codes: each code once, with its status and the members its body carries beside
// `detail` and `code`; a DomainError can only be made for a code it lists, with those members.
import { z } from 'zod';

export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };

/** A catalogue entry: the REST status, when the code is answered, the body's members. */
function entry<const S extends number, M extends z.ZodRawShape = Record<never, never>>(
  status: S,
  when: string,
  members?: M,
) {
  return { status, when, members: z.object(members ?? ({} as M)), statusVaries: false as const };
}

/** An entry for a client error whose 4xx status is the refused request's own (Fastify's, Yoga's). */
const clientStatus = (when: string) => ({ ...entry(400, when), statusVaries: true as const });

const jobId = { job_id: z.string() };

/**
 * Every code the service answers (REST `code`, GraphQL `extensions.code`, MCP `_meta.code`),
 * by status. `when` says what it means; `members` are the body's machine-readable members,
 * which GraphQL's extensions and an MCP result's `_meta` repeat.
 */
export const ERRORS = {
  // 400: the request itself is malformed.
  bad_request: clientStatus('A request Fastify refused for a reason without its own code.'),
  invalid_json: entry(400, 'The body is not the JSON its Content-Type says.'),
  invalid_url: entry(400, 'The path is not valid percent-encoding.'),
  invalid_request: clientStatus('A GraphQL request that is not a GraphQL request.'),
  query_too_long: entry(400, 'A GraphQL query string past its length limit.'),
  too_many_root_fields: entry(400, 'A GraphQL operation past its root-field limit.'),
  too_many_fields: entry(400, 'A GraphQL operation past its field limit.'),
  batch_too_large: entry(400, 'A JSON-RPC batch past its message limit.'),
  unsupported_protocol_version: entry(400, 'An MCP-Protocol-Version the server does not speak.'),
  // 401: who is asking is unknown.
  unauthenticated: entry(401, 'No or unknown bearer credential, or a wrong password.'),
  session_required: entry(401, 'A session route without a valid session.'),
  // 402
  insufficient_credits: entry(402, 'The account has fewer credits than the work costs.', {
    credits: z.number(),
  }),
  // 403: known, but not allowed.
  missing_scope: entry(403, 'The credential lacks the scope the operation needs.', {
    required_scope: z.string(),
  }),
  plan_required: entry(403, "The operation needs a higher plan than the account's."),
  plan_limit: entry(403, 'The account keeps the most its plan allows.', {
    limit: z.number(),
    plan_needed: z.string(),
  }),
  feature_required: entry(403, 'The operation needs a feature the operator has not granted.', {
    feature: z.string(),
  }),
  signup_closed: entry(403, 'Sign-up is closed (SIGNUP).'),
  origin_mismatch: entry(403, 'A request from an origin other than PUBLIC_BASE_URL.'),
  origin_required: entry(403, "A dashboard request without the page's Origin."),
  csrf_required: entry(403, 'A dashboard request without a current CSRF token.'),
  // 404
  not_found: entry(404, "Not found, or another account's."),
  route_not_found: entry(404, 'No route for this method and path.'),
  no_thumbnail: entry(404, 'No frame of the video could be taken for its thumbnail.'),
  // 405
  method_not_allowed: entry(405, 'GraphQL and MCP take POST only.'),
  // 409: the state of things refuses it.
  version_conflict: entry(409, 'A stale layout_version or expected_version.', {
    current_version: z.number(),
  }),
  invalid_status: entry(409, "The post's status does not allow the operation.", {
    status: z.string(),
  }),
  no_design: entry(409, 'The post has no native design.'),
  video_design: entry(409, 'A Canvas template asked to lay out a video design.'),
  render_failed: entry(409, "The design's rendering failed."),
  no_such_page: entry(409, "A page past the design's pages."),
  not_exported: entry(409, 'A video post scheduled before its current layout was exported.'),
  no_free_slot: entry(409, 'No posting slot free within a year.'),
  upload_finishing: entry(409, 'The chunked upload is being finished already.'),
  competitor_limit: entry(409, 'The brand tracks the most competitor profiles it may.'),
  competitor_exists: entry(409, 'The brand tracks this profile already.'),
  webhook_limit: entry(409, 'The account has the most webhook endpoints it may.'),
  email_taken: entry(409, 'An account with this e-mail exists.'),
  drawing_in_use: entry(409, 'Designs show the drawing (without force).'),
  export_gone: entry(409, 'The drawing export was deleted as it was answered.'),
  preview_pending: entry(409, 'Video preview frames still being drawn; ask again.'),
  preview_failed: entry(409, 'The video preview job failed.'),
  drawing_pending: entry(409, 'The drawing still being drawn; ask again.'),
  drawing_failed: entry(409, 'The drawing job failed.'),
  action_decided: entry(409, 'The inbox action was decided already.'),
  suggestion_replied: entry(409, 'The reply suggestion was answered already.'),
  suggestion_dismissed: entry(409, 'The reply suggestion was dismissed.'),
  suggestion_closed: entry(409, 'The reply suggestion was answered or dismissed meanwhile.'),
  reply_in_progress: entry(409, 'A reply to the suggestion is being sent.', jobId),
  already_replied: entry(409, 'The post has its one reply already.', {
    external_id: z.string().nullable(),
    url: z.string().nullable(),
  }),
  interaction_expired: entry(409, 'The OAuth sign-in request expired or was answered.'),
  unknown_client: entry(409, 'The OAuth client asking is no longer registered.'),
  platform_not_configured: entry(
    409,
    'Connecting an OAuth platform whose app credentials the operator has not set; `variables` names them.',
    { variables: z.array(z.string()) },
  ),
  reconnect_required: entry(
    409,
    'The connection holds no live user grant for it (a CLI-given token, or one refused): reconnect from the dashboard.',
  ),
  // 413
  body_too_large: entry(413, 'The body is larger than the route or the upload accepts.'),
  quota_exceeded: entry(413, "The account's storage quota has no room for it."),
  registration_too_large: entry(413, 'An OAuth client registration past its size limit.'),
  // 414
  uri_too_long: entry(414, 'A path segment past its length limit.'),
  // 415
  unsupported_media_type: entry(415, 'A Content-Type the route does not take.'),
  // 422: the input, well-formed, is refused.
  validation_failed: entry(422, 'Invalid input; `detail` lists the issues (loc, msg, type).'),
  not_a_video: entry(422, 'export_video asked of an image design.'),
  credentials_refused: entry(422, 'The platform did not accept the credentials.'),
  generation_failed: entry(422, 'The generation job failed.', jobId),
  // 429: too much at once; Retry-After says when to retry.
  rate_limited: entry(429, "The account's request budget is spent."),
  too_many_jobs: entry(429, 'The account has the most unfinished jobs of this kind.', {
    limit: z.number(),
  }),
  too_many_renders: entry(429, 'The account has the most renders in progress.'),
  login_throttled: entry(429, 'Too many sign-in attempts.'),
  registration_throttled: entry(429, 'Too many OAuth client registrations from one address.'),
  authorization_throttled: entry(429, 'Too many OAuth authorization requests from one address.'),
  logout_throttled: entry(429, 'Too many sign-out requests from one address.'),
  // 5xx
  internal_error: entry(500, 'An unexpected failure (its message is hidden, and logged).'),
  not_implemented: entry(501, 'Connecting a platform this version cannot connect yet.'),
  platform_unavailable: entry(502, 'The platform failed or answered not as documented.'),
  database_unavailable: entry(503, 'The database cannot be reached; retry after retry_after s.', {
    retry_after: z.number(),
  }),
  not_ready: entry(503, 'GET /readyz: the service cannot serve yet.', {
    reason: z.enum(['storage_full', 'storage_unavailable']).optional(),
  }),
  generation_timeout: entry(504, 'Synchronous generation past its wait; the job goes on.', jobId),
  storage_full: entry(507, "The server's disk is full."),
} as const;

export type ErrorCode = keyof typeof ERRORS;
/** The members a code's body carries beside `detail` and `code`. */
export type ErrorMembers<C extends ErrorCode> = z.output<(typeof ERRORS)[C]['members']>;
/** The codes answered with `status`. */
export type CodeWithStatus<S extends number> = {
  [C in ErrorCode]: (typeof ERRORS)[C]['status'] extends S ? C : never;
}[ErrorCode];
/** The stems of the `<stem>_pending` and `<stem>_failed` pairs a call waiting for a job answers. */
export type JobWaitCode = {
  [C in ErrorCode]: C extends `${infer S}_pending`
    ? `${S}_failed` extends ErrorCode
      ? S
      : never
    : never;
}[ErrorCode];
/** The codes whose status is the refused request's own 4xx. */
type VaryingCode = {
  [C in ErrorCode]: (typeof ERRORS)[C]['statusVaries'] extends true ? C : never;
}[ErrorCode];

type ErrorOptions<C extends ErrorCode> = {
  /** Response headers that belong to this error, e.g. Retry-After. */
  headers?: Record<string, string>;
} & (C extends VaryingCode ? { status?: number } : { status?: never });

/** The members and options after the message: the members may be left out when there are none. */
export type ErrorArgs<C extends ErrorCode> = [
  keyof (typeof ERRORS)[C]['members']['shape'],
] extends [never]
  ? [members?: ErrorMembers<C>, options?: ErrorOptions<C>]
  : [members: ErrorMembers<C>, options?: ErrorOptions<C>];

export class DomainError<C extends ErrorCode = ErrorCode> extends Error {
  /** HTTP status the REST surface answers with: the catalogue's, for most codes. */
  readonly status: number;
  /** Stable machine-readable code, e.g. `missing_scope`. */
  readonly code: C;
  /** The members of the error body its catalogue entry names, e.g. `required_scope`. */
  readonly extra: Record<string, unknown>;
  /** Response headers that belong to this error, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  constructor(code: C, message: string, ...[members, options]: ErrorArgs<C>) {
    // The types keep a code in the catalogue; this keeps a cast or a JavaScript caller there.
    if (!Object.hasOwn(ERRORS, code))
      throw new TypeError(
        `Error code "${code}" is not in the catalogue (core/kernel/errors.ts ERRORS).`,
      );
    super(message);
    this.name = 'DomainError';
    this.status = options?.status ?? ERRORS[code].status;
    this.code = code;
    this.extra = members ?? {};
    this.headers = options?.headers ?? {};
  }
}

/** 422 whose `detail` is the list of issues (CONTRACT.md validation shape). */
export class ValidationFailed extends DomainError<'validation_failed'> {
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[]) {
    super('validation_failed', issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.issues = issues;
  }
}
export const unauthenticated = (message = 'A valid bearer credential is required.') =>
  new DomainError('unauthenticated', message);

/** 403 missing_scope; the challenge names the scope, so an OAuth client can ask for it. */
export const missingScope = (scope: string) =>
  new DomainError(
    'missing_scope',
    `This operation needs the "${scope}" scope.`,
    { required_scope: scope },
    { headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` } },
  );

/** 403 plan_required: `what` needs `plan` (the operator raises it with the CLI). */
export const planRequired = (plan = 'plus', what = 'API, GraphQL and MCP access') =>
  new DomainError(
    'plan_required',
    `${what} needs the ${plan} plan or higher (the operator: npm run admin -- account plan --email E --plan ${plan}).`,
  );

/**
 * 403 plan_limit: the account keeps `limit` of `what`, the most its plan allows; `planNeeded`
 * is the lowest plan that allows one more.
 */
export const planLimit = (what: string, limit: number, planNeeded: string) =>
  new DomainError(
    'plan_limit',
    `This account keeps ${limit.toLocaleString('en-US')} ${what}, the most its plan allows; the ${planNeeded} plan allows more (the operator: npm run admin -- account plan --email E --plan ${planNeeded}).`,
    { limit, plan_needed: planNeeded },
  );

export const featureRequired = (feature: string) =>
  new DomainError(
    'feature_required',
    `This operation needs the "${feature}" feature; the operator grants it (npm run admin -- account feature --email ... --feature ${feature}).`,
    {
      feature,
    },
  );

/** A 403 of the catalogue's. */
export const forbidden = <C extends CodeWithStatus<403>>(
  code: C,
  message: string,
  ...rest: ErrorArgs<C>
) => new DomainError(code, message, ...rest);

export const notFound = (what: string) => new DomainError('not_found', `${what} not found.`);

/** A 409 of the catalogue's, with the members its entry names. */
export const conflict = <C extends CodeWithStatus<409>>(
  code: C,
  message: string,
  ...rest: ErrorArgs<C>
) => new DomainError(code, message, ...rest);

export const versionConflict = (current: number) =>
  new DomainError(
    'version_conflict',
    `The version you sent is stale (the current one is ${current}): re-read, reapply your change and resubmit.`,
    { current_version: current },
  );

/** A single-field 422, for rules a schema cannot express. */
export const invalid = (loc: (string | number)[], msg: string, type = 'value_error') =>
  new ValidationFailed([{ loc, msg, type }]);

export const tooManyRequests = (message: string, headers: Record<string, string>) =>
  new DomainError('rate_limited', message, {}, { headers });

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
