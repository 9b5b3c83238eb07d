// What a read method takes from a platform's answer, written by third parties (a caption, a
// tag, a count on a hostile profile): the shapes both connectors read it through, so a
// malformed item is left out, an absurd count is capped and text loses the characters that
// would mislead whoever reads it after us.
import { z } from 'zod';
import { CHECK_THE_ACCOUNT, finalFailure } from './connector.ts';

/**
 * Characters a third party's text (a caption, a tag, a platform's error) may carry to mislead
 * whoever reads it after us: controls (but tab and newline), format characters (the marks
 * that reorder text, zero-width ones, the invisible "tag" letters that smuggle a hidden
 * message), the line and paragraph separators, and lone surrogates (no character; a database
 * refuses them). The zero-width joiner stays: emoji are made with it.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
const KEPT = new Set(['\t', '\n', '\u200d']);
const isHidden = (ch: string) => HIDDEN.test(ch) && !KEPT.has(ch);
export const withoutControls = (text: string) =>
  Array.from(text)
    .filter((ch) => !isHidden(ch))
    .join('');

/** Characters a third party's post keeps at most (as the database keeps it). */
export const MAX_POST_TEXT = 10_000;

/**
 * A time a third party claims (a post's creation) as we keep it: in UTC, and only between
 * 1970 and a day from now; anything else (a year 0, an offset of 23 hours, no time) is
 * `fallback`, the time the platform saw it.
 */
export function claimedTime(iso: string, fallback: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) && t > 0 && t < Date.now() + 86_400_000
    ? new Date(t).toISOString()
    : fallback;
}

/**
 * A handle as platforms make them (letters, digits, `_ . -`, one `@` before an instance's
 * name): a "handle" holding anything else (spaces, a sentence) is a hostile server's, and the
 * post is left out rather than its words reaching a reply.
 */
export const Handle = z
  .string()
  .max(300)
  .regex(/^[\p{L}\p{N}_.-]+(@[\p{L}\p{N}.-]+)?$/u);

/** A third party's short text without control characters, trimmed. */
export const plainText = (text: string) => withoutControls(text).trim();

/**
 * A count as we keep it: a platform's (or a hostile profile's) absurd number is capped, so
 * four of them still add up within a 32-bit column; anything but a whole number reads 0.
 */
export const MAX_COUNT = 500_000_000;
const capped = (n: number) => Math.min(n, MAX_COUNT);
export const Count = z.number().int().min(0).catch(0).transform(capped);
/**
 * A count that must be said plainly: a missing one, or one beyond any 32-bit count, is no
 * count rather than a 0; one within it is capped as Count caps it.
 */
export const SaidCount = z.number().int().min(0).max(2_147_483_647).transform(capped);

/** Text of a platform's with nothing hidden in it (an id, an address). */
const shown = (s: string) => !/\s/.test(s) && withoutControls(s) === s;

/** An address we pass on: http(s), of a sane length and nothing hidden, else none. */
export const Address = z
  .string()
  .max(2000)
  .regex(/^https?:\/\//)
  .refine(shown)
  .nullish()
  .catch(null);

/** A platform's id of a post or a profile, as we keep it (at most 200 characters). */
export const PlatformId = z.string().min(1).max(200).refine(shown);

/** A list whose items are kept one by one: an item that does not fit is left out, not fatal. */
export const itemsOf = <S extends z.ZodType>(item: S, max = 100) =>
  z
    .array(z.unknown())
    .max(max)
    .transform((xs) =>
      xs.flatMap((x) => {
        const r = item.safeParse(x);
        return r.success ? [r.data as z.output<S>] : [];
      }),
    );

/** A post an account has, as a read-back compares it with the one we were publishing. */
export type Candidate = { id: string; text: string | undefined; at: number };

/**
 * The one post among the account's `candidates` that is ours: the same `text` (as `comparable`
 * folds it), made since `since` (ms, remembered just before the publish call) less `marginMs`
 * for clocks; of several, the one made from the remembered second on (platforms give whole
 * seconds). None matching answers undefined (nothing was published). Several that cannot be
 * told apart (the same text posted twice within the margin) are a final failure: recording the
 * wrong one would be worse than saying so.
 */
export function pickPublished<C extends Candidate>(
  candidates: readonly C[],
  want: {
    /** The platform as people write it, for the failure. */
    platform: string;
    text: string;
    since: number;
    marginMs: number;
    comparable: (text: string) => string;
  },
): C | undefined {
  const text = want.comparable(want.text);
  const near = candidates.filter(
    (c) =>
      Number.isFinite(c.at) &&
      c.at >= want.since - want.marginMs &&
      want.comparable(c.text ?? '') === text,
  );
  if (near.length <= 1) return near[0];
  const after = near.filter((c) => c.at >= Math.floor(want.since / 1000) * 1000);
  if (after.length === 1) return after[0];
  throw finalFailure(
    `${want.platform} shows ${near.length} posts with this text made since the publication began, and which one is this publication's cannot be told; ${CHECK_THE_ACCOUNT}`,
  );
}
