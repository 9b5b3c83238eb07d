// The catalogue of error codes (core/kernel/errors.ts ERRORS) is the one list: every code the documents
// name is in it with their status and members, the OpenAPI document shows only its codes, every
// entry is answered somewhere, and a body carries the members its entry names and no others.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorBody, errorMembers } from '../../api/errors.ts';
import { toGraphQLError } from '../../api/graphql/errors.ts';
import {
  conflict,
  DomainError,
  ERRORS,
  type ErrorCode,
  forbidden,
  planLimit,
} from '../../core/kernel/errors.ts';
import { call } from '../support/server.ts';
import { useServer } from '../support/service.ts';

/**
 * The codes with the status and members the documents give them: CONTRACT.md's status table
 * and plan limits, SPEC.md's errors (GraphQL's breadth limits, GET on /mcp) and the README's
 * "Authentication and errors".
 */
const DOCUMENTED: [ErrorCode, number, string[]][] = [
  ['unauthenticated', 401, []],
  ['missing_scope', 403, ['required_scope']],
  ['plan_required', 403, []],
  ['feature_required', 403, ['feature']],
  ['plan_limit', 403, ['limit', 'plan_needed']],
  ['rate_limited', 429, []],
  ['not_found', 404, []],
  ['version_conflict', 409, ['current_version']],
  ['validation_failed', 422, []],
  ['body_too_large', 413, []],
  ['unsupported_protocol_version', 400, []],
  ['insufficient_credits', 402, ['credits']],
  ['generation_timeout', 504, ['job_id']],
  ['too_many_root_fields', 400, []],
  ['too_many_fields', 400, []],
  ['method_not_allowed', 405, []],
  ['database_unavailable', 503, ['retry_after']],
  ['invalid_json', 400, []],
  ['invalid_url', 400, []],
  ['unsupported_media_type', 415, []],
  ['quota_exceeded', 413, []],
  ['storage_full', 507, []],
  ['route_not_found', 404, []],
];

/** CONTRACT.md's codes for teams (roles, approval policy), which the service does not have yet. */
const NOT_YET = ['role_required', 'approval_required'];

/** The members CONTRACT.md says an MCP error result's `_meta` carries where they apply. */
const META_MEMBERS = [
  'required_scope',
  'feature',
  'current_version',
  'credits',
  'job_id',
  'limit',
  'plan_needed',
  'role',
];

const membersOf = (code: ErrorCode) => Object.keys(ERRORS[code].members.shape);

describe('the catalogue and the documents', () => {
  it.each(DOCUMENTED)(
    '%s is catalogued as %i with its documented members',
    (code, status, members) => {
      expect(Object.hasOwn(ERRORS, code)).toBe(true);
      expect(ERRORS[code].status).toBe(status);
      expect(membersOf(code).sort()).toEqual([...members].sort());
    },
  );

  it("the teams' codes are not catalogued until teams are built (then they join DOCUMENTED)", () => {
    for (const code of NOT_YET) expect(Object.hasOwn(ERRORS, code)).toBe(false);
  });

  it("every member an MCP result's _meta is documented to carry is some code's member", () => {
    const members = new Set((Object.keys(ERRORS) as ErrorCode[]).flatMap(membersOf));
    expect(META_MEMBERS.filter((m) => !members.has(m))).toEqual(['role']);
  });
});

/** Codes built from a stem rather than written whole, and the literal they are built from. */
const BUILT: Partial<Record<ErrorCode, RegExp>> = {
  // startAndAwait's `${code}_pending` and `${code}_failed`.
  preview_pending: /code: 'preview'/,
  preview_failed: /code: 'preview'/,
  drawing_pending: /code: 'drawing'/,
  drawing_failed: /code: 'drawing'/,
  // waitingSuggestions' `suggestion_${row.status}`, for a replied or dismissed suggestion.
  suggestion_replied: /`suggestion_\$\{row\.status\}`/,
};

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

describe('the catalogue and the code', () => {
  it('every catalogued code is answered somewhere: no entry outlives its last use', () => {
    // Every source file, core/kernel/errors.ts without the catalogue itself (its helpers count).
    const text = ['api', 'core', 'workers', 'bin']
      .flatMap(sources)
      .map((f) => readFileSync(f, 'utf8'))
      .map((t) => t.replace(/^export const ERRORS = \{$[\s\S]*?^\} as const;$/m, ''))
      .join('\n');
    const unused = (Object.keys(ERRORS) as ErrorCode[]).filter(
      (code) => !text.includes(`'${code}'`) && !BUILT[code]?.test(text),
    );
    expect(unused).toEqual([]);
  });

  it('a code takes its status from the catalogue', () => {
    expect(conflict('email_taken', 'Taken.').status).toBe(409);
    expect(forbidden('signup_closed', 'Closed.').status).toBe(403);
    expect(new DomainError('storage_full', 'Full.').status).toBe(507);
    // The one kind of code whose status is the refused request's own.
    expect(new DomainError('bad_request', 'Odd.', {}, { status: 408 }).status).toBe(408);
  });

  it('a code the catalogue does not list is refused even past the types', () => {
    expect(() => new DomainError('no_such_code' as ErrorCode, 'x')).toThrow(
      'Error code "no_such_code" is not in the catalogue',
    );
  });

  it("a body carries its entry's members, and REST and GraphQL the same ones", () => {
    const err = planLimit('designs', 10, 'plus');
    expect(errorBody(err)).toEqual({
      detail: err.message,
      code: 'plan_limit',
      limit: 10,
      plan_needed: 'plus',
    });
    expect(toGraphQLError(err).extensions).toEqual({
      code: 'plan_limit',
      limit: 10,
      plan_needed: 'plus',
    });
  });

  it('a member the entry does not name never reaches a body', () => {
    // Only a cast gets one in; the body keeps to the catalogue regardless.
    const err = new DomainError('version_conflict', 'Stale.', {
      current_version: 3,
      secret: 'x',
    } as { current_version: number });
    expect(errorMembers(err)).toEqual({ current_version: 3 });
    expect(errorBody(err)).toEqual({
      detail: 'Stale.',
      code: 'version_conflict',
      current_version: 3,
    });
  });

  it('the types refuse an invented code, a missing member and a status of its own', () => {
    // Never run: `npx tsc --noEmit` checks that each line below does not compile.
    const _refused = () => [
      // @ts-expect-error not in the catalogue
      new DomainError('no_such_code', 'x'),
      // @ts-expect-error plan_limit carries limit and plan_needed
      new DomainError('plan_limit', 'x'),
      // @ts-expect-error plan_needed is missing
      new DomainError('plan_limit', 'x', { limit: 1 }),
      // @ts-expect-error plan_limit is a 403, not a 409
      conflict('plan_limit', 'x', { limit: 1, plan_needed: 'pro' }),
      // @ts-expect-error email_taken is a 409, not a 403
      forbidden('email_taken', 'x'),
      // @ts-expect-error not_found's status is the catalogue's
      new DomainError('not_found', 'x', {}, { status: 410 }),
    ];
    expect(_refused).toBeTypeOf('function');
  });
});

describe('the catalogue and the OpenAPI document', () => {
  const server = useServer();

  it("every error code the document shows is catalogued, under its entry's status", async () => {
    const res = await call(server, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    type Answer = { content?: Record<string, { example?: { code?: unknown } }> };
    const shown: [string, string][] = [];
    for (const item of Object.values(res.body.paths as Record<string, Record<string, unknown>>))
      for (const op of Object.values(item) as { responses?: Record<string, Answer> }[])
        for (const [status, answer] of Object.entries(op.responses ?? {}))
          for (const media of Object.values(answer.content ?? {}))
            if (status >= '400' && typeof media.example?.code === 'string')
              shown.push([media.example.code, status]);
    expect(shown.length).toBeGreaterThan(0);
    const wrong = shown.filter(
      ([code, status]) =>
        !Object.hasOwn(ERRORS, code) || String(ERRORS[code as ErrorCode].status) !== status,
    );
    expect(wrong).toEqual([]);
  });
});
