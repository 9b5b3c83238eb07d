// What the OAuthApps of Threads, Instagram, Facebook, TikTok, YouTube and Pinterest share: one
// call to a platform's token or identity endpoint through the outbound guard, its refusals
// read from each platform's error shape with every secret of the call taken out, and the
// fields of a token answer checked as hostile input (a token, an expiry, an id).
import { z } from 'zod';
import { PublicationError } from '../connector.ts';
import type { PlatformRequest, PlatformResponse } from '../http.ts';
import { PLATFORM_TIMEOUT_MS, platformRequest, refusal } from '../http.ts';
import type { OAuthContext, OAuthTokens } from '../oauthApp.ts';
import { plainText } from '../readings.ts';
import { withoutSecrets } from '../secrets.ts';

/** A token as a platform issues it: opaque, without spaces, of a sane length. */
export const Token = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[\x21-\x7e]+$/, 'not a token');

/** Seconds until something expires: a whole positive number, as JSON or as a numeric string. */
export const Seconds = z.union([
  z
    .number()
    .int()
    .positive()
    .max(10 * 365 * 86_400),
  z
    .string()
    .regex(/^\d{1,10}$/)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .positive()
        .max(10 * 365 * 86_400),
    ),
]);

/**
 * A platform's numeric id: a string of digits, or a JSON number still exact as a double (a
 * larger one was already rounded by the JSON parser, so it names someone else).
 */
export const NumericId = z
  .union([z.string(), z.number()])
  .superRefine((v, ctx) => {
    if (typeof v === 'number' && !(Number.isSafeInteger(v) && v >= 0))
      ctx.addIssue({
        code: 'custom',
        message: 'a number id not exact in JSON (too large or not whole)',
      });
  })
  .transform(String)
  .pipe(z.string().regex(/^\d{1,40}$/, 'not a numeric id'));

/** A display name or handle a platform gives (a Page's name, a channel's title): plain, short. */
export const ShownName = z
  .string()
  .max(500)
  .transform((s) => Array.from(plainText(s)).slice(0, 100).join(''))
  .pipe(z.string().min(1));

/** When something `seconds` from now expires, as OAuthTokens keeps it. */
export const expiresAt = (seconds: number | undefined, now = Date.now()) =>
  seconds === undefined ? undefined : new Date(now + seconds * 1000).toISOString();

/** A form body (application/x-www-form-urlencoded). */
export const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
  body: new URLSearchParams(fields).toString(),
});

/** An address with its query (`base` already holds the path). */
export const withQuery = (base: string, query: Record<string, string>) =>
  `${base}?${new URLSearchParams(query).toString()}`;

/**
 * The reason a platform gives for a refusal, whichever of the shapes it uses: Meta's
 * `{error: {message}}`, OAuth's `{error, error_description}`, TikTok's `{error: {code,
 * message}}`, Pinterest's `{code, message}`, Google's `{error: {message}}`.
 */
export function reasonOf(res: PlatformResponse): string {
  const json = res.json;
  if (typeof json !== 'object' || json === null) return '';
  const o = json as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const err = o.error;
  if (typeof err === 'object' && err !== null) {
    const e = err as Record<string, unknown>;
    return [text(e.code) ?? text(e.status), text(e.message)].filter(Boolean).join(': ');
  }
  const described = [text(err), text(o.error_description)].filter(Boolean).join(': ');
  return described || text(o.message) || '';
}

/** A refusal of a grant the platform will not take again: the account needs reconnecting. */
export const refusedGrant = (status: number) =>
  status >= 400 && status < 500 && status !== 408 && status !== 429;

export type Call = {
  ctx: OAuthContext;
  /** The platform's name as messages show it ("Threads"). */
  platform: string;
  method: PlatformRequest['method'];
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Every secret the call carries (tokens, the client secret): never in an error. */
  secrets: readonly (string | undefined)[];
  /**
   * A refusal means the stored grant is dead (a refresh, an identity call with stored
   * tokens): a 4xx then asks for a reconnect.
   */
  reconnectOnRefusal: boolean;
};

/**
 * Sends one call and answers its 2xx response; anything else throws a PublicationError: a
 * 4xx final (with `reconnect` where the call says so), a 5xx, 429 or network failure
 * retryable. No message carries a secret of the call or its address (which may hold one).
 */
export async function send(call: Call): Promise<PlatformResponse> {
  let res: PlatformResponse;
  try {
    res = await platformRequest(call.ctx.policy, call.platform, call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      timeoutMs: PLATFORM_TIMEOUT_MS,
    });
  } catch (err) {
    if (!(err instanceof PublicationError)) throw err;
    const message = withoutSecrets(err.message, call.secrets);
    if (message === err.message) throw err;
    throw new PublicationError(message, { retryable: err.retryable, status: err.status });
  }
  if (res.status >= 200 && res.status < 300) return res;
  const reason = withoutSecrets(reasonOf(res), call.secrets);
  throw refusal(call.platform, res, reason, {
    reconnect: call.reconnectOnRefusal && refusedGrant(res.status),
  });
}

/**
 * A 2xx answer that carries an error all the same (TikTok's token endpoint documents its
 * errors as a body, not a status): a refusal like a 400's.
 */
export function refusedIn(call: Call, res: PlatformResponse): PublicationError {
  const reason = withoutSecrets(reasonOf(res), call.secrets);
  return refusal(call.platform, res, reason, { reconnect: call.reconnectOnRefusal });
}

/** The failure of a connection that cannot be refreshed at all: only a reconnect helps. */
export const cannotRefresh = (platform: string, why: string) =>
  new PublicationError(`${platform} cannot be refreshed: ${why}; reconnect the account.`, {
    retryable: false,
    reconnect: true,
  });

/** The operator's app on the platform, or a final failure naming the variables to set. */
export function clientOf(ctx: OAuthContext, platform: string): { id: string; secret: string } {
  const { clientId, clientSecret, clientVars } = ctx.app;
  if (!clientId || !clientSecret)
    throw new PublicationError(
      `${platform} needs the operator's app: set ${clientVars[0]} and ${clientVars[1]}.`,
      { retryable: false },
    );
  return { id: clientId, secret: clientSecret };
}

/** A string field of stored credentials (a `page_id`, a `user_id`), if it has one. */
export const stored = (credentials: object, key: string): string | undefined => {
  const v = (credentials as Record<string, unknown>)[key];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
};

/** The token the identity call uses: the credentials' access token, or a final failure. */
export function accessTokenOf(credentials: Record<string, unknown>, platform: string): string {
  const token = stored(credentials, 'access_token');
  if (!token)
    throw new PublicationError(`${platform} needs an access_token to name the account.`, {
      retryable: false,
    });
  return token;
}

/**
 * The account the token acts as must be the one the credentials name (a `user_id` given to
 * the CLI): a token of another account would publish as someone else.
 */
export function sameAccount(
  platform: string,
  field: string,
  credentials: Record<string, unknown>,
  actual: string,
): void {
  const given = stored(credentials, field);
  if (given !== undefined && given !== actual)
    throw new PublicationError(
      `${platform}${platform.endsWith('s') ? "'" : "'s"} token acts as ${field} ${actual}, ` +
        `not the ${field} ${given} given: give the token of ${field} ${given}, or ${field} ${actual} ` +
        "if that is the account meant (for a Facebook Page, the Page's own token, not a user's).",
      { retryable: false },
    );
}

/** Tokens without the fields a platform left out (no `refresh_token: undefined` stored). */
export function tokens(t: OAuthTokens): OAuthTokens {
  return Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined)) as OAuthTokens;
}
