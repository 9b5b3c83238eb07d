// Representative values of a zod schema's output, for serializing every documented response:
// one value per union option (so a layout list holds every layer kind), each leaf the first
// candidate its own checks accept. Values that fail an object's refinement are dropped.
import { z } from 'zod';

type Def = {
  type: string;
  [key: string]: unknown;
};
const defOf = (schema: z.core.$ZodType) => schema._zod.def as unknown as Def;

const STRINGS = [
  'text',
  '#1a2b3c',
  '12',
  'c1',
  '2026-01-01T00:00:00.000Z',
  '0b7e3f6a-58d1-4c6e-9f8a-2d1c3b4a5e6f',
  'https://example.com/a.png',
  'someone@example.com',
];
const NUMBERS = [1, 0, 0.5, 48, 1080, -1];

/** Whether `value` encodes through `schema`: 'ok', 'invalid', or 'throws' (a schema bug). */
export function encodes(schema: z.core.$ZodType, value: unknown): 'ok' | 'invalid' | 'throws' {
  try {
    return z.safeEncode(schema as z.ZodType, value).success ? 'ok' : 'invalid';
  } catch {
    return 'throws';
  }
}

const firstAccepted = (schema: z.core.$ZodType, candidates: unknown[]) =>
  candidates.filter((c) => (schema as z.ZodType).safeParse(c).success).slice(0, 1);

/** Representative output values of `schema`: at least one unless it admits none we know. */
export function samplesOf(schema: z.core.$ZodType, depth = 0): unknown[] {
  if (depth > 40) return [];
  const def = defOf(schema);
  const inner = (key: string) => samplesOf(def[key] as z.core.$ZodType, depth + 1);
  switch (def.type) {
    case 'string':
      return firstAccepted(schema, STRINGS);
    case 'number':
      return firstAccepted(schema, NUMBERS);
    case 'boolean':
      return [true, false];
    case 'null':
      return [null];
    case 'undefined':
    case 'void':
      return [undefined];
    case 'any':
    case 'unknown':
      return ['anything'];
    case 'date':
      return [new Date(0)];
    case 'literal':
      return [...(def.values as unknown[])];
    case 'enum':
      return Object.values(def.entries as Record<string, unknown>);
    case 'optional':
      return [...inner('innerType'), undefined];
    case 'nullable':
      return [...inner('innerType'), null];
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return inner('innerType');
    case 'lazy':
      return samplesOf((def.getter as () => z.core.$ZodType)(), depth + 1);
    case 'pipe':
      // A codec's encoded side is its input; a response holds its output (`out`).
      return inner('out');
    case 'transform':
      // Nothing can say what a one-way transform produced: encoding it throws, as it should.
      return ['untransformable'];
    case 'array': {
      const items = inner('element');
      return items.length ? [items] : [[]];
    }
    case 'tuple': {
      const items = (def.items as z.core.$ZodType[]).map((i) => samplesOf(i, depth + 1)[0]);
      return [items];
    }
    case 'record': {
      const keys = samplesOf(def.keyType as z.core.$ZodType, depth + 1).filter(
        (k): k is string => typeof k === 'string',
      );
      const values = inner('valueType');
      return [Object.fromEntries(keys.slice(0, 1).map((k) => [k, values[0]]))];
    }
    case 'union':
      return (def.options as z.core.$ZodType[]).flatMap((o) => samplesOf(o, depth + 1));
    case 'intersection': {
      const [left] = inner('left');
      const [right] = inner('right');
      return [{ ...(left as object), ...(right as object) }];
    }
    case 'object': {
      const shape = def.shape as Record<string, z.core.$ZodType>;
      const fields = Object.entries(shape).map(
        ([key, s]) => [key, samplesOf(s, depth + 1)] as const,
      );
      const count = Math.max(1, ...fields.map(([, v]) => v.length));
      // Field k of value j takes its sample (j + k): optional fields come and go out of step,
      // so an "either a or b" refinement meets values with each.
      const candidates = Array.from({ length: count }, (_, j) =>
        Object.fromEntries(
          fields
            .map(([key, v], k) => [key, v.length ? v[(j + k) % v.length] : undefined] as const)
            .filter(([, v]) => v !== undefined),
        ),
      );
      const kept = candidates.filter((c) => encodes(schema, c) !== 'invalid');
      return kept.length ? kept : candidates;
    }
    default:
      return [];
  }
}
