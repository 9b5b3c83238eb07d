// What Meta's Graph hosts answer alike, for the stand-ins of Threads, Instagram, Facebook Pages
// and their OAuth routes (threads.ts, instagram.ts, facebook.ts, metaOauth.ts): the user they
// know, the error body of Graph's error-handling page, its "object does not exist" and
// transient answers, its timestamps, and where a call carries its token.
import { type Answer, json, type Received } from './standIn.ts';

/** The brand user every Meta stand-in knows, as Threads and Instagram name it (numeric id). */
export const META_USER = { id: '17841400000000001', username: 'brand.studio' };

/**
 * A Graph error: `{error: {message, type, code, ...extra, fbtrace_id}}`, `type` OAuthException
 * unless `extra` gives another (Threads' THApiException), `extra` the subcode and user texts.
 */
export const graphError = (
  status: number,
  code: number,
  message: string,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
): Answer =>
  json(
    status,
    { error: { message, type: 'OAuthException', code, ...extra, fbtrace_id: 'AbCdEf123' } },
    headers,
  );

/**
 * Graph's answer to an object that does not exist or the token may not read (code 100, subcode
 * 33); `method` as Facebook and Instagram name the request ("Unsupported get request"), none as
 * Threads answers ("Unsupported request").
 */
export const objectNotFound = (
  id: string,
  method?: string,
  extra: Record<string, unknown> = {},
): Answer =>
  graphError(
    400,
    100,
    `Unsupported ${method ? `${method.toLowerCase()} ` : ''}request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { error_subcode: 33, ...extra },
  );

/** Graph's answer for a passing failure of its own (500, code 2, is_transient). */
export const transientError = (): Answer =>
  graphError(500, 2, 'An unexpected error has occurred. Please retry your request later.', {
    is_transient: true,
  });

/** Meta's timestamps: ISO 8601 to the second with a +0000 offset. */
export const metaTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');

/** The token a Graph call carries: `Authorization: Bearer`, or `access_token` in query or form. */
export const graphToken = (r: Received): string | undefined =>
  /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ''))?.[1] ??
  r.query.access_token ??
  r.form.access_token;
