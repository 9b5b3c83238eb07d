// Tool results are capped at 40 KB (SPEC.md "MCP"), always with an explicit marker, never as
// cut JSON: list items are dropped from the end; a Canvas layout too large to fit is left out
// whole (its layers are read in parts with get_layers); then the longest strings are cut; and
// last, whatever still does not fit is left out by name. The cap holds for the whole result
// as sent: the JSON text, the same object as structuredContent, and any image or text a tool
// attaches after it (an attachment that does not fit stays out; the tool answers its link).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

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

/** Members whose values another tool reads in parts: left out whole rather than cut. */
const READ_ELSEWHERE: Record<string, string> = {
  layout: 'read its layers with get_layers (design_post and edit_layers take layout_version)',
};

type Found = { key: string; path: string };

/** `node` with the member at `path` set to null: shallow copies along the path, no more. */
function withoutAt(node: Record<string, unknown>, path: string[]): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  return {
    ...node,
    [head]: rest.length ? withoutAt(node[head] as Record<string, unknown>, rest) : null,
  };
}

/** Members named in READ_ELSEWHERE, in the result or one object down (get_post's post). */
function readElsewhere(result: Record<string, unknown>): Found[] {
  const found: Found[] = [];
  const visit = (node: Record<string, unknown>, prefix: string, depth: number) => {
    for (const [key, value] of Object.entries(node)) {
      if (value === null || typeof value !== 'object') continue;
      if (key in READ_ELSEWHERE) found.push({ key, path: `${prefix}${key}` });
      else if (depth < 1 && !Array.isArray(value))
        visit(value as Record<string, unknown>, `${prefix}${key}.`, depth + 1);
    }
  };
  visit(result, '', 0);
  return found;
}

/** Top-level members that are objects or lists, largest first, with their sizes. */
function largestMembers(result: Record<string, unknown>) {
  return Object.entries(result)
    .filter(([, v]) => v !== null && typeof v === 'object')
    .map(([key, v]) => ({ key, bytes: size(v) }))
    .sort((a, b) => b.bytes - a.bytes);
}

/** The result within `limit` bytes of JSON, and its JSON text (serialized once more at most). */
export function capResult(
  result: Record<string, unknown>,
  limit = RESULT_LIMIT_BYTES,
): {
  result: Record<string, unknown>;
  text: string;
} {
  const text = JSON.stringify(result);
  if (Buffer.byteLength(text) <= limit) return { result, text };
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
      if (size(candidate) <= limit) lo = mid;
      else hi = mid - 1;
    }
    out = { ...out, [key]: items.slice(0, lo), omitted: items.length - lo };
  }
  const omitted: string[] = [];
  const notes: string[] = [];
  let bytes = size(out);
  // A layout with cut texts, handed back to design_post, would store the cut: leave it out.
  if (bytes > limit)
    for (const found of readElsewhere(out)) {
      out = withoutAt(out, found.path.split('.'));
      omitted.push(found.path);
      notes.push(`${found.path}: ${READ_ELSEWHERE[found.key]}`);
    }
  if (omitted.length) bytes = size(withOmissions(out, omitted, notes));
  if (bytes > limit) out = cutLongestStrings(out, bytes, limit) as Record<string, unknown>;
  // Last, what still does not fit (numbers, many short strings) is left out by name.
  if (size(withOmissions(out, omitted, notes)) > limit) {
    notes.push('too large for one result: read it in smaller parts (a filter, a page, an id)');
    for (const member of largestMembers(out)) {
      out = { ...out, [member.key]: null };
      omitted.push(member.key);
      if (size(withOmissions(out, omitted, notes)) <= limit) break;
    }
  }
  out = withOmissions(out, omitted, notes);
  return { result: out, text: JSON.stringify(out) };
}

/** The result with the names of what was left out and what to do instead, if anything was. */
function withOmissions(out: Record<string, unknown>, omitted: string[], notes: string[]) {
  return omitted.length
    ? { ...out, omitted_fields: omitted, truncated_note: notes.join('; ') }
    : out;
}

export type Attachment = CallToolResult['content'][number];

/** A tool result's members around its JSON text and structuredContent, as sent. */
const ENVELOPE_BYTES =
  Buffer.byteLength(
    JSON.stringify({ content: [{ type: 'text', text: '' }], structuredContent: null }),
  ) - Buffer.byteLength('""null');

/** Bytes an attachment adds to the serialized result (its JSON and a comma). */
const attachmentBytes = (a: Attachment) => Buffer.byteLength(JSON.stringify(a)) + 1;

/**
 * The result capped so that its JSON text and structuredContent together fit the limit: the
 * JSON's own limit starts at half, less the envelope, and shrinks by what escaping the text
 * added (quotes inside a JSON string take two bytes) until the whole fits.
 */
function cappedWhole(result: Record<string, unknown>) {
  let jsonLimit = Math.floor((RESULT_LIMIT_BYTES - ENVELOPE_BYTES) / 2);
  for (;;) {
    const capped = capResult(result, jsonLimit);
    const bytes =
      ENVELOPE_BYTES +
      Buffer.byteLength(capped.text) +
      Buffer.byteLength(JSON.stringify(capped.text));
    if (bytes <= RESULT_LIMIT_BYTES || jsonLimit <= 1024) return { ...capped, bytes };
    jsonLimit = Math.max(1024, jsonLimit - (bytes - RESULT_LIMIT_BYTES));
  }
}

/**
 * Whether `item` still fits after `attached` in a result answering `answer` (or an answer no
 * longer than it: a tool asks with its answer as it will be, or longer).
 */
export function fitsInResult(
  answer: Record<string, unknown>,
  attached: readonly Attachment[],
  item: Attachment,
): boolean {
  const attachedBytes = attached.reduce((n, a) => n + attachmentBytes(a), 0);
  return cappedWhole(answer).bytes + attachedBytes + attachmentBytes(item) <= RESULT_LIMIT_BYTES;
}

/** The tool result as sent: the capped JSON twice, then the attachments that fit, in order. */
export function toolResult(
  answer: Record<string, unknown>,
  attached: readonly Attachment[],
): CallToolResult {
  const { result, text, bytes } = cappedWhole(answer);
  let total = bytes;
  const content: Attachment[] = [{ type: 'text', text }];
  for (const item of attached) {
    // Tools attach only what fitsInResult allowed; this keeps the cap if one misjudged.
    total += attachmentBytes(item);
    if (total > RESULT_LIMIT_BYTES) break;
    content.push(item);
  }
  return { content, structuredContent: result };
}

/** What an isError result says: its text, the machine-readable members, and any issues. */
export type ToolError = {
  code: string;
  message: string;
  meta: Record<string, unknown>;
  /** A validation failure's issues, each also a part of `message`, in order. */
  issues?: readonly { loc: readonly (string | number)[]; msg: string }[];
};

const errorOf = (text: string, meta: Record<string, unknown>): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text }],
  _meta: meta,
});

/**
 * An isError result within the cap, as a success is: a validation failure listing thousands
 * of issues (a layout of many layers, each naming a missing asset) keeps the first issues
 * whole in its text and in `_meta.issues`, the most that fit, and says how many there were
 * (`_meta.truncated`, `issues_total`); any other message too long is cut with a marker.
 */
export function errorResult({ code, message, meta, issues }: ToolError): CallToolResult {
  const whole = errorOf(`${code}: ${message}`, issues ? { ...meta, issues } : meta);
  if (size(whole) <= RESULT_LIMIT_BYTES) return whole;
  if (!issues) {
    const text = `${code}: ${message}`;
    // Halved until it fits: escaping can make a character take several bytes of JSON.
    let keep = Math.floor(RESULT_LIMIT_BYTES / 2);
    let cut = errorOf(marked(text, keep), meta);
    while (size(cut) > RESULT_LIMIT_BYTES && keep > 64) {
      keep = Math.floor(keep / 2);
      cut = errorOf(marked(text, keep), meta);
    }
    return cut;
  }
  const total = issues.length;
  const firstOf = (k: number) => {
    const shown = issues.slice(0, k);
    const lines = shown.map((i) => (i.loc.length ? `${i.loc.join('.')}: ${i.msg}` : i.msg));
    const rest = `… and ${total - k} more issues not shown (${total} in all; fix these and call again to see the rest)`;
    return errorOf(`${code}: ${[...lines, rest].join('; ')}`, {
      ...meta,
      issues: shown,
      truncated: true,
      issues_total: total,
    });
  };
  // The most issues that fit, by binary search.
  let lo = 0;
  let hi = total;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(firstOf(mid)) <= RESULT_LIMIT_BYTES) lo = mid;
    else hi = mid - 1;
  }
  return firstOf(lo);
}
