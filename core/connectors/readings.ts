// What a read method takes from a platform's answer, written by third parties (a caption, a
// tag, a count on a hostile profile): the shapes both connectors read it through, so a
// malformed item is left out, an absurd count is capped and text loses the characters that
// would mislead whoever reads it after us.
import { z } from 'zod';

/**
 * Control characters (but tab and newline) and the marks that reorder text, which a third
 * party's text (a caption, a tag) may carry to mislead whoever reads it after us.
 */
const CONTROL_RANGES: [number, number][] = [
  [0x00, 0x08],
  [0x0b, 0x1f],
  [0x7f, 0x9f],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
];
const isControl = (ch: string) => {
  const code = ch.codePointAt(0)!;
  return CONTROL_RANGES.some(([from, to]) => code >= from && code <= to);
};
export const withoutControls = (text: string) =>
  Array.from(text)
    .filter((ch) => !isControl(ch))
    .join('');

/** A third party's short text without control characters, trimmed. */
export const plainText = (text: string) => withoutControls(text).trim();

/**
 * A count as we keep it: a platform's (or a hostile profile's) absurd number is capped, so
 * four of them still add up within a 32-bit column; anything but a whole number reads 0.
 */
export const MAX_COUNT = 500_000_000;
export const Count = z
  .number()
  .int()
  .min(0)
  .catch(0)
  .transform((n) => Math.min(n, MAX_COUNT));

/** An address we pass on: http(s) and of a sane length, else none. */
export const Address = z
  .string()
  .max(2000)
  .regex(/^https?:\/\//)
  .nullish()
  .catch(null);

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
