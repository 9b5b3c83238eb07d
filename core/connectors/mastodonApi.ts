// Calling a Mastodon instance with a connected account's token, and reading what it answers:
// shared by the connector's publication and reading methods (mastodon.ts) and its engagement
// methods (mastodonEngagement.ts).
import { z } from 'zod';
import type { OutboundPolicy } from '../outbound/guard.ts';
import { PublicationError } from './connector.ts';
import {
  documented,
  fieldOf,
  type PlatformRequest,
  type PlatformResponse,
  platformRequest,
  refusal,
} from './http.ts';
import { withoutControls } from './readings.ts';

/** POST /api/v1/statuses's answer, as the connector reads it. */
export const Status = z.object({ id: z.string().min(1), url: z.string().nullish() });
/** GET /api/v1/accounts/verify_credentials, as far as its id. */
export const OwnAccount = z.object({ id: z.string().min(1) });

/** A status's HTML longer than this is not one Mastodon wrote (they hold ~500 characters). */
const MAX_STATUS_HTML = 20_000;

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/**
 * A status's HTML as text: paragraphs and line breaks kept, tags dropped, entities resolved.
 * Linear string work, no DOM: an instance's HTML is not trusted to be shallow or small.
 */
export function statusText(html: string): string {
  if (html.length > MAX_STATUS_HTML) return '';
  const text = html
    .replace(/<br\s*\/?>/gi, '\n')
    // `[^<>]`, not `[^>]`: a run of `<` without `>` is then read in linear time.
    .replace(/<\/p>\s*<p[^<>]*>/gi, '\n\n')
    .replace(/<[^<>]*>/g, '')
    .replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (m, e: string) => {
      const code =
        e[0] === '#'
          ? Number.parseInt(
              e.slice(e[1] === 'x' || e[1] === 'X' ? 2 : 1),
              e[1] === 'x' || e[1] === 'X' ? 16 : 10,
            )
          : undefined;
      if (code !== undefined)
        return code > 31 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
      return ENTITIES[e.toLowerCase()] ?? m;
    });
  return withoutControls(text).trim();
}

type Credentials = { instance: string; access_token: string };

export function credentialsOf(c: Record<string, unknown>): Credentials {
  if (typeof c.instance !== 'string' || typeof c.access_token !== 'string')
    throw new PublicationError(
      'The Mastodon account lacks instance or access_token; reconnect it.',
      { retryable: false, reconnect: true },
    );
  return { instance: c.instance.replace(/\/+$/, ''), access_token: c.access_token };
}

export type Client = (
  path: string,
  init: Omit<PlatformRequest, 'timeoutMs'>,
) => Promise<PlatformResponse>;

/** GET `path`, read as `schema` documents its answer. */
export async function getDocumented<S extends z.ZodType>(call: Client, path: string, schema: S) {
  return documented('Mastodon', `GET ${path}`, await call(path, { method: 'GET' }), schema);
}

/** Calls on one instance with one token; non-2xx answers become publication errors. */
export function client(policy: OutboundPolicy, creds: Credentials, timeoutMs: number): Client {
  return async (path, init) => {
    const res: PlatformResponse = await platformRequest(
      policy,
      'Mastodon',
      `${creds.instance}${path}`,
      {
        ...init,
        headers: { authorization: `Bearer ${creds.access_token}`, ...init.headers },
        timeoutMs,
      },
    );
    if (res.status >= 200 && res.status < 300) return res;
    throw refusal('Mastodon', res, fieldOf(res, 'error') ?? 'no reason given', {
      reconnect: res.status === 401,
    });
  };
}
