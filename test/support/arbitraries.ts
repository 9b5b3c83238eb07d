// fast-check arbitraries for fuzzing every surface: hostile leaves (NUL, lone surrogates,
// huge and non-finite numbers, wrong types, deep nesting) and inputs shaped by a route's or a
// tool's own zod schema, mostly valid so the fuzz reaches past validation, each leaf sometimes
// replaced by something hostile.
import fc from 'fast-check';
import type { z } from 'zod';

/** The run count and seed of every fuzz property: FUZZ_RUNS and FUZZ_SEED override them. */
export const fuzzParams = (runs = 50) => ({
  numRuns: Number(process.env.FUZZ_RUNS ?? runs),
  seed: process.env.FUZZ_SEED === undefined ? 20_261_115 : Number(process.env.FUZZ_SEED),
});

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\ud83d',
    '😀',
    '%zz',
    '%00',
    '../../etc/passwd',
    "'; drop table posts; --",
    '0',
    '-1',
    '1e309',
    '99999999999999999999999',
    'NaN',
    'null',
    'true',
    '{}',
    '[]',
    '__proto__',
    'constructor',
    '2026-02-30T25:61:00Z',
    'x'.repeat(5_000),
  ),
  fc.tuple(fc.string(), fc.constantFrom('\u0000', '\ud800', '\udc00')).map(([s, bad]) => s + bad),
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 1e308, -1e308, 2 ** 53 + 2, 2 ** 63, 1e-320, 0.1, 9.999999999e20),
);

/** Any JSON value: wrong types, odd keys, and (through toJson) nesting far past any schema. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 3 }),
    // A marker toJson expands: fast-check itself recurses through the values it holds.
    fc.integer({ min: 40, max: 100_000 }).map((depth) => `<<deep:${depth}>>`),
  ),
})).value;

const STRINGS = [
  'Hello world',
  '#1a2b3c',
  'c1',
  '2030-01-01T09:00:00Z',
  '0b7e3f6a-58d1-4c6e-9f8a-2d1c3b4a5e6f',
  'https://example.com/a.png',
  'someone@example.com',
];
const NUMBERS = [1, 0, 2, 48, 100, 0.5];

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: z.core.$ZodType) => schema._zod.def as unknown as Def;
const accepts = (schema: z.core.$ZodType, v: unknown) => (schema as z.ZodType).safeParse(v).success;

/**
 * What the fuzz knows of the account: ids that exist, so some inputs reach real rows; and
 * `strangers`, ids that name nothing of the caller's (missing ids of every kind, another
 * account's, out of range, UUIDs), which every operation must answer as not found.
 */
export type FuzzContext = { ids: string[]; strings?: string[]; strangers?: string[] };

/** One of the caller's ids mostly, a stranger's id sometimes (when the context has some). */
export const someId = (ctx: FuzzContext): fc.Arbitrary<string> =>
  ctx.strangers?.length
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...ctx.ids) },
        { weight: 1, arbitrary: fc.constantFrom(...ctx.strangers) },
      )
    : fc.constantFrom(...ctx.ids);

/** `valid`'s members, a stranger's id among them a quarter of the time if it fits at all. */
function validOrStranger(
  valid: unknown[],
  schema: z.core.$ZodType,
  ctx: FuzzContext,
): fc.Arbitrary<unknown> {
  const strangers = (ctx.strangers ?? []).filter((s) => accepts(schema, s));
  if (!strangers.length) return fc.constantFrom(...valid);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.constantFrom(...strangers) },
  );
}

/**
 * Input for `schema`: a third of the values valid all through (every leaf one its own checks
 * accept, an existing id where ids fit) so the fuzz reaches past validation, a third valid with
 * a few hostile leaves or unknown keys, a third anything at all.
 */
export const fuzzInput = (schema: z.core.$ZodType, ctx: FuzzContext): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 2, arbitrary: shaped(schema, ctx, 'valid') },
    { weight: 2, arbitrary: shaped(schema, ctx, 'tainted') },
    { weight: 2, arbitrary: shaped(schema, ctx, 'mixed') },
    { weight: 1, arbitrary: hostileValue },
  );

/** Text with a NUL or a lone surrogate somewhere: valid to zod, refused by Postgres. */
export const taint = (text: string): fc.Arbitrary<string> =>
  fc
    .tuple(fc.nat({ max: text.length }), fc.constantFrom('\u0000', '\ud800', '\udfff'))
    .map(([at, bad]) => text.slice(0, at) + bad + text.slice(at));

/**
 * valid: every leaf passes its own checks; tainted: so do they, but text may hold a NUL or a
 * lone surrogate; mixed: one leaf in eight is anything at all.
 */
type Mode = 'valid' | 'tainted' | 'mixed';

function shaped(
  schema: z.core.$ZodType,
  ctx: FuzzContext,
  mode: Mode,
  depth = 0,
): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const inner = (key: string) => shaped(def[key] as z.core.$ZodType, ctx, mode, depth + 1);
  // In mixed mode one leaf in eight is hostile.
  const spoil = (valid: fc.Arbitrary<unknown>, hostile: fc.Arbitrary<unknown> = hostileValue) =>
    mode !== 'mixed'
      ? valid
      : fc.oneof({ weight: 7, arbitrary: valid }, { weight: 1, arbitrary: hostile });
  if (depth > 12) return hostileValue;
  switch (def.type) {
    case 'string': {
      const valid = [...ctx.ids, ...(ctx.strings ?? []), ...STRINGS].filter((s) =>
        accepts(schema, s),
      );
      // Only text the schema would take with a NUL in it (an id or a colour would not).
      const taintable = valid.filter((v) => accepts(schema, `${v}\u0000`));
      if (mode === 'tainted' && taintable.length)
        return fc.oneof(fc.constantFrom(...valid), fc.constantFrom(...taintable).chain(taint));
      return spoil(
        valid.length ? validOrStranger(valid, schema, ctx) : fc.string(),
        fc.oneof(hostileString, hostileValue),
      );
    }
    case 'number': {
      const valid = NUMBERS.filter((n) => accepts(schema, n));
      return spoil(
        valid.length ? fc.constantFrom(...valid) : fc.integer(),
        fc.oneof(hostileNumber, hostileValue),
      );
    }
    case 'boolean':
      return spoil(fc.boolean());
    case 'literal':
      return spoil(fc.constantFrom(...(def.values as unknown[])));
    case 'enum':
      return spoil(
        fc.constantFrom(...Object.values(def.entries as Record<string, unknown>)),
        hostileString,
      );
    case 'optional':
    case 'default':
    case 'prefault':
      // Half the optional fields are left out: few inputs take all of them at once.
      return fc.option(inner('innerType'), { nil: undefined, freq: 2 });
    case 'nullable':
      return fc.option(inner('innerType'), { nil: null, freq: 3 });
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return inner('innerType');
    case 'lazy':
      return shaped((def.getter as () => z.core.$ZodType)(), ctx, mode, depth + 1);
    case 'pipe': {
      // Input is checked by the pipe's first stage (a codec's encoded side); a valid value must
      // pass the whole pipe (an id is a string, but few strings are ids).
      const valid = [...ctx.ids, ...(ctx.strings ?? []), ...STRINGS, ...NUMBERS].filter((v) =>
        accepts(schema, v),
      );
      return valid.length ? spoil(validOrStranger(valid, schema, ctx)) : inner('in');
    }
    case 'array':
      return spoil(fc.array(inner('element'), { maxLength: 3 }));
    case 'tuple':
      return spoil(
        fc.tuple(...(def.items as z.core.$ZodType[]).map((i) => shaped(i, ctx, mode, depth + 1))),
      );
    case 'record':
      return spoil(
        fc.dictionary(
          mode === 'valid'
            ? fc.constantFrom('text', 'x', 'size', 'color')
            : fc.oneof(fc.constantFrom('text', 'x', 'asset_id', 'kind'), hostileString),
          inner('valueType'),
          { maxKeys: 3 },
        ),
      );
    case 'union':
      return fc.oneof(
        ...(def.options as z.core.$ZodType[]).map((o) => shaped(o, ctx, mode, depth + 1)),
      );
    case 'intersection':
      return fc
        .tuple(inner('left'), inner('right'))
        .map(([l, r]) => (typeof l === 'object' && typeof r === 'object' ? { ...l, ...r } : l));
    case 'object': {
      const shape = def.shape as Record<string, z.core.$ZodType>;
      const fields = Object.fromEntries(
        Object.entries(shape).map(([k, s]) => [k, shaped(s, ctx, mode, depth + 1)]),
      );
      const object = fc
        .record(fields)
        .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
      if (mode === 'valid') return object;
      return fc.oneof(
        { weight: 6, arbitrary: object },
        {
          weight: 1,
          arbitrary: fc
            .tuple(object, hostileString, hostileValue)
            .map(([o, key, value]) => ({ ...o, [key]: value })),
        },
        { weight: 1, arbitrary: hostileValue },
      );
    }
    default:
      return hostileValue;
  }
}

/** JSON text of a fuzzed value, each deep-nesting marker expanded to arrays that deep. */
export function toJson(value: unknown): string | undefined {
  return JSON.stringify(value)?.replace(
    /"<<deep:(\d+)>>"/g,
    (_m, n: string) => `${'['.repeat(Number(n))}${']'.repeat(Number(n))}`,
  );
}

/** A value as URL text: strings as they are, anything else as its JSON. */
const asText = (v: unknown) => (typeof v === 'string' ? v : (toJson(v) ?? 'undefined'));

/** A path segment: usually the value percent-encoded, sometimes malformed encoding as is. */
export function pathSegment(value: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: value.map((v) => encodeLoosely(asText(v))) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%zz', '%', '%E0%A4%A', '%ED%A0%80', '%00', '..', '%2F'),
    },
  );
}

/** encodeURIComponent, with a lone surrogate sent as the invalid UTF-8 it would be on the wire. */
export function encodeLoosely(text: string): string {
  return [...text]
    .map((ch) => {
      try {
        return encodeURIComponent(ch);
      } catch {
        return '%ED%A0%80';
      }
    })
    .join('');
}

/** A query string from an object of values (each stringified), possibly with a junk pair. */
export function queryString(values: Record<string, unknown>): string {
  const pairs = Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeLoosely(k)}=${encodeLoosely(asText(v))}`);
  return pairs.length ? `?${pairs.join('&')}` : '';
}

/** Every path into a JSON value (objects' keys and arrays' indexes), the root included. */
function pathsOf(value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(path);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) pathsOf(v, [...path, i], out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...path, k], out);
  }
  return out;
}

/**
 * A known-good input, as it is or with one part changed: replaced by something hostile,
 * removed, or (a string) given a NUL or a lone surrogate; and, with `ctx`, each id in it (one
 * of ctx.ids) replaced by a stranger's id. These get furthest into the code before something
 * is off, a missing id included.
 */
export function mutated(example: unknown, ctx?: FuzzContext): fc.Arbitrary<unknown> {
  const paths = pathsOf(example);
  const strings = paths.filter((p) => typeof valueAt(example, p) === 'string');
  const ids = paths.filter((p) => ctx?.ids.includes(valueAt(example, p) as string));
  const reIded =
    ctx?.strangers?.length && ids.length
      ? [
          {
            weight: 2,
            arbitrary: fc
              .tuple(fc.constantFrom(...ids), fc.constantFrom(...ctx.strangers))
              .map(([path, id]) => withValueAt(example, path, id)),
          },
        ]
      : [];
  const edit = fc
    .tuple(
      fc.nat({ max: paths.length - 1 }),
      fc.constantFrom('replace', 'remove', 'taint', 'taint'),
      hostileValue,
      fc.nat(),
      fc.constantFrom('\u0000', '\ud800', '\udfff'),
    )
    .map(([i, how, replacement, at, bad]) => {
      const tainting = how === 'taint' && strings.length > 0;
      const path = tainting ? strings[i % strings.length]! : paths[i]!;
      if (!path.length) return tainting ? withTaint(example as string, at, bad) : replacement;
      const copy = structuredClone(example) as Record<string | number, unknown>;
      const holder = valueAt(copy, path.slice(0, -1)) as Record<string | number, unknown>;
      const last = path[path.length - 1]!;
      if (tainting) holder[last] = withTaint(holder[last] as string, at, bad);
      else if (how === 'remove' && !Array.isArray(holder)) delete holder[last];
      else holder[last] = replacement;
      return copy;
    });
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(example) },
    { weight: 4, arbitrary: edit },
    ...reIded,
  );
}

/** A copy of `value` with `replacement` at `path` (the root replaced when the path is empty). */
function withValueAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (!path.length) return replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  const holder = valueAt(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  holder[path[path.length - 1]!] = replacement;
  return copy;
}

const valueAt = (value: unknown, path: (string | number)[]) =>
  path.reduce<unknown>((v, step) => (v as Record<string | number, unknown>)[step], value);

const withTaint = (text: string, at: number, bad: string) => {
  const i = at % (text.length + 1);
  return text.slice(0, i) + bad + text.slice(i);
};
