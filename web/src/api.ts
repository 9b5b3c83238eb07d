// The dashboard's calls to its own origin: /auth for signing in and up, /app/api for its data.
// A state-changing call carries the session's CSRF token; a failure is an ApiError holding the
// API's message and, for a 422, the message of each field it names.
import type { SessionView } from '../../core/accounts/schema.ts';
import type { PostStatus, PostView } from '../../core/posts/schema.ts';

/** A Retry-After header (seconds, or an HTTP date) as milliseconds from `now`; none: undefined. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  /** A 422's messages by field name (the last part of each `loc`). */
  readonly fields: Record<string, string>;
  /** How long the answer asked to wait before trying again (its Retry-After), if it did. */
  readonly retryAfterMs: number | undefined;
  constructor(status: number, body: unknown, retryAfter: string | null = null) {
    const detail = (body as { detail?: unknown } | null)?.detail;
    const fields: Record<string, string> = {};
    if (Array.isArray(detail))
      for (const d of detail as { loc?: (string | number)[]; msg?: string }[]) {
        const field = String(d.loc?.at(-1) ?? '');
        if (field && d.msg && !fields[field]) fields[field] = d.msg;
      }
    super(
      typeof detail === 'string'
        ? detail
        : Object.keys(fields).length
          ? 'Some fields need a change.'
          : `The request failed (${status}).`,
    );
    this.status = status;
    this.code = (body as { code?: string } | null)?.code;
    this.fields = fields;
    this.retryAfterMs = retryAfterMs(retryAfter);
  }
}

/** Any failure of a call as an ApiError: one that never reached the service says so. */
export const asApiError = (err: unknown): ApiError =>
  err instanceof ApiError ? err : new ApiError(0, { detail: 'The service could not be reached.' });

let csrfToken = '';
/** Kept from the session answer; sent with every state-changing call. */
export const setCsrfToken = (token: string) => {
  csrfToken = token;
};

/** The header a state-changing request carries. */
export const csrfHeader = (): Record<string, string> => ({ 'x-csrf-token': csrfToken });

export async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'GET' ? {} : csrfHeader()),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return answerOf<T>(res);
}

/** A response's JSON, or the ApiError it answers (with its Retry-After). */
export async function answerOf<T>(res: Response): Promise<T> {
  const text = await res.text();
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) throw new ApiError(res.status, json, res.headers.get('retry-after'));
  return json as T;
}

// The data's types come from core's zod schemas (type-only imports: nothing of core is bundled).
export type { Brand } from '../../core/brands/schema.ts';
export type { Job } from '../../core/jobs/schema.ts';
export type { Post, PostStatus, PostView } from '../../core/posts/schema.ts';

/** GET /app/api/session: the session view and the CSRF token for its requests. */
export type Session = SessionView & { csrf_token: string };
/** GET /app/api/board: the brand's posts by status, the columns in the statuses' order. */
export type Board = { brand_id: string | null; columns: Record<PostStatus, PostView[]> };
