// Tool results are capped at 40 KB (SPEC.md "MCP"): list items are dropped from the end, and
// then the longest strings are cut, always with an explicit marker, never as cut JSON.

export const RESULT_LIMIT_BYTES = 40 * 1024;

const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/** The largest array member of the result, if any. */
function largestArray(result: Record<string, unknown>): string | undefined {
  let best: string | undefined;
  for (const [key, value] of Object.entries(result))
    if (Array.isArray(value) && (!best || size(value) > size(result[best]))) best = key;
  return best;
}

const marked = (text: string, keep: number) =>
  `${text.slice(0, keep)}… [truncated ${text.length - keep} characters]`;

/** Bytes a string takes in JSON text (quotes and escapes included). */
const jsonBytes = (s: string) => Buffer.byteLength(JSON.stringify(s));

/**
 * A copy of `value` whose longest strings are cut, longest first, until its JSON text takes
 * at most `limit` bytes, or every string is down to 64 characters (the result is then left
 * over the limit). Each string is cut from its original text, at 4096 characters and then at
 * halves of that, and the size is kept by arithmetic, not by serializing again: the work is
 * linear in the strings, never a copy of the whole value per cut (a layout with many long
 * texts once kept the event loop busy for minutes, re-cutting its own markers).
 */
function cutLongestStrings(value: unknown, bytes: number, limit: number): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  const strings: {
    holder: Record<string | number, unknown>;
    key: string | number;
    text: string;
  }[] = [];
  const stack: unknown[] = [copy];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    for (const [key, v] of Object.entries(node)) {
      if (typeof v === 'string') {
        if (v.length > 64) strings.push({ holder: node as Record<string, unknown>, key, text: v });
      } else if (v && typeof v === 'object') stack.push(v);
    }
  }
  strings.sort((a, b) => b.text.length - a.text.length);
  let size = bytes;
  for (let keep = 4096; keep >= 64; keep = Math.floor(keep / 2))
    for (const s of strings) {
      if (size <= limit) return copy;
      if (s.text.length <= keep) break;
      const before = jsonBytes(s.holder[s.key] as string);
      const cut = marked(s.text, keep);
      const after = jsonBytes(cut);
      // Cutting a string shorter than the marker would only lengthen it.
      if (after >= before) continue;
      s.holder[s.key] = cut;
      size -= before - after;
    }
  return copy;
}

/** The result within the limit, and its JSON text (serialized once). */
export function capResult(result: Record<string, unknown>): {
  result: Record<string, unknown>;
  text: string;
} {
  const text = JSON.stringify(result);
  if (Buffer.byteLength(text) <= RESULT_LIMIT_BYTES) return { result, text };
  let out: Record<string, unknown> = { ...result, truncated: true };
  const key = largestArray(result);
  if (key) {
    const items = result[key] as unknown[];
    // The most items that fit, by binary search.
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const candidate = { ...out, [key]: items.slice(0, mid), omitted: items.length - mid };
      if (size(candidate) <= RESULT_LIMIT_BYTES) lo = mid;
      else hi = mid - 1;
    }
    out = { ...out, [key]: items.slice(0, lo), omitted: items.length - lo };
  }
  const bytes = size(out);
  if (bytes > RESULT_LIMIT_BYTES)
    out = cutLongestStrings(out, bytes, RESULT_LIMIT_BYTES) as Record<string, unknown>;
  return { result: out, text: JSON.stringify(out) };
}
