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

/** Cuts the longest string in `value` (deeply) to `keep` characters, with a marker. */
function cutLongestString(value: unknown, keep: number): unknown {
  let longest:
    | { holder: Record<string, unknown> | unknown[]; key: string | number; len: number }
    | undefined;
  const visit = (node: unknown) => {
    if (Array.isArray(node)) {
      for (const [i, v] of node.entries()) consider(node, i, v);
    } else if (node && typeof node === 'object')
      for (const [k, v] of Object.entries(node)) consider(node as Record<string, unknown>, k, v);
  };
  const consider = (
    holder: Record<string, unknown> | unknown[],
    key: string | number,
    v: unknown,
  ) => {
    if (typeof v === 'string') {
      if (!longest || v.length > longest.len) longest = { holder, key, len: v.length };
    } else visit(v);
  };
  const copy = structuredClone(value);
  visit(copy);
  if (!longest || longest.len <= keep) return undefined;
  const text = (longest.holder as Record<string | number, string>)[longest.key]!;
  (longest.holder as Record<string | number, string>)[longest.key] =
    `${text.slice(0, keep)}… [truncated ${text.length - keep} characters]`;
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
  for (let keep = 4096; size(out) > RESULT_LIMIT_BYTES && keep >= 64; ) {
    const cut = cutLongestString(out, keep) as Record<string, unknown> | undefined;
    if (cut) out = cut;
    else keep = Math.floor(keep / 2);
  }
  return { result: out, text: JSON.stringify(out) };
}
