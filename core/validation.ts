// How every surface (REST, GraphQL, MCP) checks its input before the domain sees it: text
// Postgres cannot store is refused wherever it sits, then the zod schema runs with messages
// that say what to change (the close match of an unknown field or option, a missing field).
import { z } from 'zod';
import { ValidationFailed, type ValidationIssue } from './kernel/errors.ts';

/** A hex colour, #rgb, #rrggbb or #rrggbbaa in either case (JSON Schema has no `i` flag). */
export const HexColour = z
  .string()
  .regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, 'must be a hex colour like #1a2b3c');

/** The stable id of a part of something edited in parts: a layer's cid, a stroke's sid. */
export const PartId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"');

type Loc = ValidationIssue['loc'];

/** A count as refusals write it: 20,000, not 20000. */
export const grouped = (n: number) => n.toLocaleString('en-US');

/**
 * Words users bring from other APIs, grouped with ours: an unknown one is answered with the
 * member of its group the schema takes (`text` → `body`, `twitter` → `x`).
 */
const SYNONYMS = [
  ['body', 'text', 'content', 'message', 'caption', 'status'],
  ['hashtags', 'tags', 'hashtag'],
  ['x', 'twitter', 'tweet'],
  ['asset_ids', 'media', 'media_ids', 'assets', 'images', 'attachments'],
  ['asset_id', 'image', 'image_id', 'media_id', 'src'],
  ['url', 'link', 'href', 'address', 'uri'],
  ['schedule_at', 'scheduled_at', 'scheduled_for', 'publish_at', 'when', 'time'],
  ['headline', 'title', 'subject'],
  ['status_filter', 'status', 'state'],
  ['alt_text', 'alt', 'description'],
  ['shape', 'rectangle', 'rect', 'ellipse', 'circle'],
  ['doodle', 'drawing', 'stroke', 'strokes', 'pen'],
];

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        prev[j]! + 1,
        row[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    prev = row;
  }
  return prev[b.length]!;
}

/** The one of `options` the user most likely meant by `word`, if one is close enough. */
export function closestMatch(word: string, options: readonly string[]): string | undefined {
  if (word.length > 64 || !options.length) return undefined;
  const lower = word.toLowerCase();
  const exact = options.find((o) => o.toLowerCase() === lower);
  if (exact) return exact;
  for (const group of SYNONYMS)
    if (group.includes(lower)) {
      const ours = group.find((w) => w !== lower && options.includes(w));
      if (ours) return ours;
    }
  // `fade_in` for `fade`, `zoom` for `zoom_in`: one is the other with a part added.
  const extended = options.filter((o) => {
    const l = o.toLowerCase();
    return Math.min(l.length, lower.length) >= 3 && (lower.startsWith(l) || l.startsWith(lower));
  });
  if (extended.length === 1) return extended[0];
  let best: { option: string; d: number } | undefined;
  for (const option of options) {
    const d = distance(lower, option.toLowerCase());
    if (!best || d < best.d) best = { option, d };
  }
  return best && best.d <= Math.max(1, Math.floor(word.length / 3)) ? best.option : undefined;
}

const quote = (v: unknown) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return `\`${s === undefined ? String(v) : s.length > 40 ? `${s.slice(0, 40)}…` : s}\``;
};

const oneOf = (given: unknown, options: readonly unknown[]) => {
  const names = options.map(String);
  const match = typeof given === 'string' ? closestMatch(given, names) : undefined;
  return `${quote(given)}: ${match ? `did you mean \`${match}\`? ` : ''}expected one of ${names.join(', ')}`;
};

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

type RawIssue = z.core.$ZodRawIssue & {
  inst?: { _zod: { def: { shape?: Record<string, unknown> } } };
  discriminator?: string;
  options?: unknown[];
  note?: string;
};

/**
 * zod's error map for every input: the messages that name what to change. Issues it does not
 * recognise keep zod's own message.
 */
export function explainIssue(raw: z.core.$ZodRawIssue): string | undefined {
  const iss = raw as RawIssue;
  switch (iss.code) {
    case 'unrecognized_keys': {
      const known = Object.keys(iss.inst?._zod.def.shape ?? {});
      return iss.keys
        .map((key) => {
          const match = closestMatch(key, known);
          return `${quote(key)}: unknown field; ${
            match
              ? `did you mean \`${match}\`?`
              : `this object takes ${known.join(', ') || 'no fields'}`
          }`;
        })
        .join('; ');
    }
    case 'invalid_value':
      return oneOf(iss.input, iss.values);
    case 'invalid_union': {
      if (iss.note === 'No matching discriminator' && iss.discriminator) {
        const given = (iss.input as Record<string, unknown> | undefined)?.[iss.discriminator];
        if (given === undefined)
          return `required, but missing: give one of ${(iss.options ?? []).map(String).join(', ')}`;
        return oneOf(given, iss.options ?? []);
      }
      if (iss.input === undefined) return 'required, but missing';
      // Each branch refused the value's type (an id given as true): say which types fit.
      const expected = (iss as { errors?: z.core.$ZodIssue[][] }).errors?.map((branch) =>
        branch.length === 1 && branch[0]!.code === 'invalid_type' && !branch[0]!.path.length
          ? branch[0]!.expected
          : undefined,
      );
      if (expected?.length && expected.every(Boolean))
        return `expected ${[...new Set(expected)].join(' or ')}, received ${kindOf(iss.input)}`;
      return undefined;
    }
    case 'invalid_type':
      if (iss.input === undefined) return `required, but missing (expected ${iss.expected})`;
      return undefined;
    default:
      return undefined;
  }
}

/**
 * The issues of the union branch the value came closest to (the fewest issues), when every
 * branch refused it for what it holds: a video layout with one bad layer is told about that
 * layer, not that it is also not a Canvas layout.
 */
function closestBranch(issue: z.core.$ZodIssue): readonly z.core.$ZodIssue[] | undefined {
  if (issue.code !== 'invalid_union') return undefined;
  const branches = (issue as { errors?: z.core.$ZodIssue[][] }).errors ?? [];
  // A value of the wrong type (or none) fails each branch at its root: explainIssue says it
  // better. (A finished issue carries no input to tell those apart by.)
  const wrongType = (b: z.core.$ZodIssue[]) =>
    b.some((i) => !i.path.length && i.code === 'invalid_type');
  if (!branches.length || branches.every(wrongType)) return undefined;
  // A branch that finds fields it does not know (or misses whole ones) is about another
  // shape of input: the closest branch has the fewest such, then the fewest issues.
  const foreign = (b: z.core.$ZodIssue[]) =>
    b.reduce(
      (n, i) =>
        n + (i.code === 'unrecognized_keys' ? i.keys.length : i.code === 'invalid_type' ? 1 : 0),
      0,
    );
  const closest = branches.reduce((a, b) =>
    foreign(b) < foreign(a) || (foreign(b) === foreign(a) && b.length < a.length) ? b : a,
  );
  return closest.map((i) => ({ ...i, path: [...issue.path, ...i.path] }));
}

/** zod's issues as CONTRACT.md's validation issues, under `loc` (e.g. ['body']). */
export function toValidationIssues(
  error: { issues: readonly z.core.$ZodIssue[] },
  loc: Loc = [],
): ValidationIssue[] {
  return error.issues.flatMap((i) => {
    const branch = closestBranch(i);
    if (branch) return toValidationIssues({ issues: branch }, loc);
    return [
      {
        loc: [...loc, ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))],
        msg: i.message,
        type: i.code,
      },
    ];
  });
}

/** Why `text` cannot be stored, if it cannot: Postgres refuses NUL, and JSON lone surrogates. */
export function unstorable(text: string): string | undefined {
  if (text.includes('\u0000'))
    return 'contains a NUL character (U+0000), which cannot be stored; remove it';
  if (!text.isWellFormed())
    return 'contains a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff), which is not text; send valid Unicode';
  return undefined;
}

type Step = { value: unknown; depth: number; key?: string | number; parent?: Step };

const pathOf = (step: Step): Loc => {
  const path: Loc = [];
  for (let s: Step | undefined = step; s?.key !== undefined; s = s.parent) path.push(s.key);
  return path.reverse();
};

/** No input of ours nests half as deep (a layout's stroke points are 7 levels down). */
export const MAX_INPUT_DEPTH = 32;

/**
 * The first string (or object key) in `value` that cannot be stored, with its path, or the
 * first value nested deeper than any input of ours (code further on may recurse into it).
 * The walk is iterative and links each step to its parent, so it costs linear time.
 */
export function findUnstorableText(value: unknown): ValidationIssue | undefined {
  const stack: Step[] = [{ value, depth: 0 }];
  while (stack.length) {
    const step = stack.pop()!;
    const v = step.value;
    if (step.depth > MAX_INPUT_DEPTH)
      return {
        loc: pathOf(step.parent!),
        msg: `nested more than ${MAX_INPUT_DEPTH} levels deep; no field takes that`,
        type: 'too_deep',
      };
    if (typeof v === 'string') {
      const why = unstorable(v);
      if (why) return { loc: pathOf(step), msg: why, type: 'unstorable_text' };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], depth: step.depth + 1, key: i, parent: step });
    } else if (v !== null && typeof v === 'object') {
      // Only parsed data (JSON objects, and query objects whose prototype has none itself):
      // streams, buffers and other instances are not input text.
      const proto = Object.getPrototypeOf(v);
      if (proto !== null && proto !== Object.prototype && Object.getPrototypeOf(proto) !== null)
        continue;
      for (const [key, member] of Object.entries(v).reverse()) {
        const why = unstorable(key);
        if (why)
          return {
            loc: [...pathOf(step), key],
            msg: `field name ${why}`,
            type: 'unstorable_text',
          };
        stack.push({ value: member, depth: step.depth + 1, key, parent: step });
      }
    }
  }
  return undefined;
}

/**
 * Checks request input against its schema and answers the parsed value, or throws a 422
 * naming each field and what to change. `loc` prefixes every issue (e.g. ['body']).
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  loc: Loc = [],
): z.output<S> {
  const bad = findUnstorableText(value);
  if (bad) throw new ValidationFailed([{ ...bad, loc: [...loc, ...bad.loc] }]);
  const result = schema.safeParse(value, { error: explainIssue });
  if (!result.success) throw new ValidationFailed(toValidationIssues(result.error, loc));
  return result.data;
}
