// Tool schemas as tools/list serves them: self-contained JSON Schema (no external $ref), but
// lean, because every agent pays for the whole list in its context on each connection. A
// subschema used more than once within one schema is written once under `$defs`; the layout,
// which an output only echoes, is summarised there instead of spelt out a second time.
import { z } from 'zod';
import { DesignLayout, Layout, VideoLayout } from '../../core/designs/schema.ts';

type Json = Record<string, unknown>;

/** Schemas that outputs summarise: each is spelt out in full by one tool the summary names. */
const SUMMARISED_IN_OUTPUTS = new Map<z.ZodType, string>([
  [Layout, 'A native Canvas layout: canvas, then layers or pages (as design_post takes it).'],
  [
    DesignLayout,
    'A native Canvas layout, or a video layout (canvas.type "video"), as design_post takes it.',
  ],
]);

/**
 * Schemas that inputs describe in a sentence rather than spell out: the video timeline repeats
 * every Canvas layer with timing keys (6 KB of tools/list). The full schema still validates
 * each call, and its errors name the field to change.
 */
const SUMMARISED_IN_INPUTS = new Map<z.ZodType, string>([
  [
    VideoLayout,
    'Video layout: canvas {type: "video", aspect, duration_s ≤ 180, fps 24|25|30, bg}; ≤ 160 layers: Canvas layers or {kind: "video", asset_id, clip_id, trim_start_s, fit, volume, muted}, each with start_s, end_s, enter/exit {kind: fade|slide_up|zoom_in, duration_s}; audio {asset_id, start_s, volume, fade_in_s, fade_out_s}. As get_post shows.',
  ],
]);

/**
 * `schema` under another name whose outputs show only `summary`: for a shape several tools
 * answer, spelt out in full by the one tool the summary names (get_post for a post).
 */
export function summarisedInOutputs<T extends z.ZodType>(schema: T, summary: string): T {
  const named = schema.describe(summary) as T;
  SUMMARISED_IN_OUTPUTS.set(named, summary);
  return named;
}

/**
 * Makes inputs describe `schema` (this very instance, where a tool's input uses it) in one
 * sentence: for a shape one tool spells out and another takes again (strokes). The full
 * schema still validates every call.
 */
export function summariseInInputs(schema: z.ZodType, summary: string): void {
  SUMMARISED_IN_INPUTS.set(schema, summary);
}

/** A `$ref` costs about this many characters; a definition this short is cheaper inlined. */
const INLINE_BELOW = 48;

export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const generated = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    reused: 'ref',
    // Marked here and replaced below: zod merges a described schema's parent into it after
    // this callback, so emptying the node here would not last.
    override: ({ zodSchema, jsonSchema }) => {
      const summary = (io === 'output' ? SUMMARISED_IN_OUTPUTS : SUMMARISED_IN_INPUTS).get(
        zodSchema as unknown as z.ZodType,
      );
      if (summary) (jsonSchema as Json)[SUMMARY] = summary;
    },
  }) as Json;
  const { $schema: _, $defs, ...root } = summarise(generated) as Json;
  return tidy(compactDefs(root, ($defs ?? {}) as Record<string, Json>), io) as Json;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Drops what says nothing: an integer's safe-integer bounds (zod writes them on every int),
 * a description that only lists the enum beside it (in outputs, one that lists it at all), an output's closed and required
 * properties, and `anyOf` of one plain type and null, which `type: [T, "null"]` says shorter.
 */
function tidy(node: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((item) => tidy(item, io));
  if (!node || typeof node !== 'object') return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, tidy(v, io)]));
  // An output may gain fields, and a client validating it must not refuse them; that every
  // field listed is present (null when empty) goes without saying.
  if (io === 'output') {
    if (out.additionalProperties === false) delete out.additionalProperties;
    if (out.type === 'object') delete out.required;
  }
  // zod spells `format: date-time` (or uuid, email) out again as a 400-character pattern.
  if (typeof out.format === 'string' && typeof out.pattern === 'string') delete out.pattern;
  if (out.minimum === -SAFE) delete out.minimum;
  if (out.maximum === SAFE) delete out.maximum;
  if (Array.isArray(out.enum) && typeof out.description === 'string') {
    // What a description says besides the values (and a "Platform:" label before them).
    let rest = out.description;
    for (const v of out.enum) rest = rest.replace(String(v), '');
    rest = rest.replace(/^[\w ]+:/, '').replace(/[\s,.;:()]+/g, '');
    const listsAll = out.enum.every((v) => (out.description as string).includes(String(v)));
    if (listsAll && (io === 'output' || rest.length === 0)) delete out.description;
  }
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const nullAt = anyOf.findIndex((s) => JSON.stringify(s) === '{"type":"null"}');
    const other = anyOf[1 - nullAt] as Json | undefined;
    if (nullAt !== -1 && other && typeof other.type === 'string') {
      const { type, description, ...rest } = other;
      const keys = Object.keys(rest);
      if (keys.length === 0) {
        delete out.anyOf;
        out.type = [type, 'null'];
        if (description !== undefined && out.description === undefined)
          out.description = description;
      }
    }
  }
  return out;
}

/**
 * A tool's output schema: its result plus `extra` (the truncation marker). A result
 * summarised as a whole keeps only the summary beside `extra`.
 */
export function toolOutputSchema(output: z.ZodObject, extra: z.ZodRawShape): Json {
  const summary = SUMMARISED_IN_OUTPUTS.get(output);
  if (!summary) return toolJsonSchema(output.extend(extra), 'output');
  return { ...toolJsonSchema(z.object(extra), 'output'), description: summary };
}

const SUMMARY = 'x-summary';

function summarise(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(summarise);
  if (!node || typeof node !== 'object') return node;
  const summary = (node as Json)[SUMMARY];
  // The summary keeps the node's own type (an object, or an array of them).
  if (typeof summary === 'string')
    return { type: (node as Json).type === 'array' ? 'array' : 'object', description: summary };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, summarise(v)]));
}

/** Every `$ref` target in a schema tree, with its count. */
function countRefs(node: unknown, counts: Map<string, number>): void {
  if (Array.isArray(node)) for (const item of node) countRefs(item, counts);
  else if (node && typeof node === 'object') {
    const ref = (node as Json).$ref;
    if (typeof ref === 'string') counts.set(ref, (counts.get(ref) ?? 0) + 1);
    for (const value of Object.values(node)) countRefs(value, counts);
  }
}

/** Replaces `$ref`s through `resolve` (which answers the node to put instead, or undefined). */
function rewrite(node: unknown, resolve: (ref: string, node: Json) => Json | undefined): unknown {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, resolve));
  if (!node || typeof node !== 'object') return node;
  // A replacement may itself be a reference (a definition that only renames another).
  let source = node as Json;
  for (let ref = source.$ref; typeof ref === 'string'; ref = source.$ref) {
    const replaced = resolve(ref, source);
    if (!replaced || replaced.$ref === ref) {
      source = replaced ?? source;
      break;
    }
    source = replaced;
  }
  return Object.fromEntries(Object.entries(source).map(([k, v]) => [k, rewrite(v, resolve)]));
}

/**
 * Inlines the definitions used once or shorter than a reference, and names the rest after the
 * property that uses them (`#/$defs/cid` rather than zod's `__schema7`), or `sharedN`.
 */
function compactDefs(root: Json, defs: Record<string, Json>): Json {
  const refOf = (id: string) => `#/$defs/${id}`;
  // Only definitions reachable from the root stay (a summarised layout leaves its parts).
  const reachable = new Set<string>();
  const reach = (node: unknown) => {
    const found = new Map<string, number>();
    countRefs(node, found);
    for (const ref of found.keys()) {
      if (reachable.has(ref)) continue;
      reachable.add(ref);
      reach(defs[ref.slice('#/$defs/'.length)]);
    }
  };
  reach(root);
  for (const id of Object.keys(defs)) if (!reachable.has(refOf(id))) delete defs[id];
  let tree: Json = root;
  // Inline until nothing changes: inlining one definition may leave another used once.
  for (;;) {
    const counts = new Map<string, number>();
    countRefs([tree, defs], counts);
    const inline = new Set(
      Object.keys(defs).filter((id) => {
        const uses = counts.get(refOf(id)) ?? 0;
        const own = new Map<string, number>();
        countRefs(defs[id], own);
        if (own.has(refOf(id))) return false; // recursive: stays a definition
        return uses === 1 || (uses > 1 && JSON.stringify(defs[id]).length < INLINE_BELOW);
      }),
    );
    if (!inline.size) break;
    const bodies = new Map([...inline].map((id) => [refOf(id), defs[id]]));
    const resolve = (ref: string, node: Json) => {
      const body = bodies.get(ref);
      if (!body) return undefined;
      // A reference may carry its own keywords beside $ref (a description, a default).
      const { $ref: _, ...own } = node;
      return { ...body, ...own };
    };
    tree = rewrite(tree, resolve) as Json;
    for (const id of inline) delete defs[id];
    for (const id of Object.keys(defs)) defs[id] = rewrite(defs[id], resolve) as Json;
  }
  const counts = new Map<string, number>();
  countRefs([tree, defs], counts);
  for (const id of Object.keys(defs)) if (!counts.has(refOf(id))) delete defs[id];
  if (!Object.keys(defs).length) return tree;
  // A definition's description that every reference replaces with its own is never read.
  const described = new Map<string, boolean>();
  const noteDescriptions = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) noteDescriptions(item);
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    const { $ref: ref, description } = node as Json;
    if (typeof ref === 'string')
      described.set(ref, (described.get(ref) ?? true) && typeof description === 'string');
    for (const value of Object.values(node)) noteDescriptions(value);
  };
  noteDescriptions([tree, defs]);
  for (const id of Object.keys(defs)) if (described.get(refOf(id))) delete defs[id]!.description;
  // The properties that refer to each definition.
  const users = new Map<string, string[]>();
  const collect = (node: unknown, key: string): void => {
    if (Array.isArray(node)) for (const item of node) collect(item, key);
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string') {
      const list = users.get(ref) ?? [];
      if (key && !list.includes(key)) list.push(key);
      users.set(ref, list);
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties' && v && typeof v === 'object')
        for (const [prop, sub] of Object.entries(v)) collect(sub, prop.replace(/\W/g, '_'));
      else collect(v, key);
    }
  };
  collect(tree, '');
  for (const def of Object.values(defs)) collect(def, '');
  const names = new Map<string, string>();
  const taken = new Set<string>();
  let shared = 0;
  for (const [ref, keys] of users) {
    // One property's own type takes its name; one several properties share is numbered.
    let name = keys.length === 1 ? keys[0]! : `shared${++shared}`;
    for (let n = 2; taken.has(name); n++) name = `${keys[0]}${n}`;
    taken.add(name);
    names.set(ref, name);
  }
  const rename = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rename);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' ? refOf(names.get(v)!) : rename(v),
      ]),
    );
  };
  return {
    ...(rename(tree) as Json),
    $defs: Object.fromEntries(
      Object.entries(defs).map(([id, def]) => [names.get(refOf(id))!, rename(def)]),
    ),
  };
}
