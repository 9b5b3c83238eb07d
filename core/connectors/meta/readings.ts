// What Threads, Instagram and Facebook read alike from Meta's Graph: a published object's
// permalink, a media's insights, a publishing quota's answer, Graph's times.
// Docs: developers.facebook.com/docs/threads/insights, …/instagram-platform/reference/
// instagram-media/insights, …/threads/troubleshooting (threads_publishing_limit),
// …/instagram-graph-api/reference/ig-user/content_publishing_limit.
import { z } from 'zod';
import { PublicationError } from '../connector.ts';
import { itemsOf } from '../readings.ts';
import { type GraphCall, getDocumented } from './graph.ts';

/**
 * The published object's public address (its `field`, as `read` takes it), or null when Meta
 * gives none: the post is published, and an address we cannot read is no reason to say otherwise.
 */
export async function permalinkOf(
  call: GraphCall,
  path: string,
  field: string,
  read: (value: unknown) => string | null,
): Promise<string | null> {
  try {
    const res = await call('GET', path, { fields: field });
    return read((res.json as Record<string, unknown> | undefined)?.[field]);
  } catch {
    return null;
  }
}

const HttpsUrl = z.url({ protocol: /^https$/ }).max(2000);
/**
 * A reader of a `permalink` as Threads and Instagram give it: an https address on one of the
 * platform's own `domains` (or a subdomain), else none. The address is shown to people as the
 * post's, so one elsewhere (an answer gone wrong, or hostile) is not taken.
 */
export const addressOn =
  (...domains: string[]) =>
  (value: unknown): string | null => {
    const parsed = HttpsUrl.safeParse(value);
    if (!parsed.success) return null;
    const host = new URL(parsed.data).hostname;
    return domains.some((d) => host === d || host.endsWith(`.${d}`)) ? parsed.data : null;
  };

const Metric = z.object({
  name: z.string().max(100),
  values: z
    .array(z.object({ value: z.number() }))
    .max(10)
    .optional(),
  total_value: z.object({ value: z.number() }).optional(),
});
const Insights = z.object({ data: itemsOf(Metric) });

/** GET {path} (a media's `/insights`) for `metrics`: each metric's lifetime value by name. */
export async function insightsOf(
  call: GraphCall,
  platform: string,
  path: string,
  metrics: string,
): Promise<Map<string, number>> {
  const values = new Map<string, number>();
  for (const m of (await getDocumented(call, platform, path, { metric: metrics }, Insights)).data) {
    const value = m.total_value?.value ?? m.values?.[0]?.value;
    if (value !== undefined) values.set(m.name, value);
  }
  return values;
}

/** A quota as its reference answers it (`{data: [quota]}`), or the quota itself (Threads' overview). */
export const quotaAnswer = <S extends z.ZodType>(quota: S) =>
  z
    .union([z.object({ data: z.array(quota).min(1) }), quota])
    .transform((a) => (a && typeof a === 'object' && 'data' in a ? a.data[0]! : a) as z.output<S>);

/**
 * A publishing quota read before publishing, or undefined when it cannot be read (refused, or
 * not the documented answer): it is left to the platform, which enforces it on the publish call.
 * A throttle or a dead token is that failure, thrown.
 */
export async function quotaUnlessUnreadable<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof PublicationError && !err.retryable && !err.reconnect) return undefined;
    throw err;
  }
}

/** Text as Threads and Instagram echo it, compared with what was sent (NFC, spaces folded). */
export const echoedText = (text: string) => text.normalize('NFC').replace(/\s+/g, ' ').trim();

/** How far before the remembered time a read-back looks (clocks differ). */
export const CLOCK_MARGIN_MS = 2 * 60_000;

/** Graph's times (ISO 8601 with an offset written `+0000`) in ms; NaN when not one. */
export const graphTime = (time: string | undefined) =>
  Date.parse((time ?? '').replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
