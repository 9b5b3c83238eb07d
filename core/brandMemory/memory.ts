// Brand memory's operations, shared by REST (GET/PATCH /v1/brand-memory) and MCP
// (get_brand_memory, update_brand_memory): reading a brand's memory with its confidence and
// gaps, and patching it with RFC 6902 ops under expected_version.
import jsonpatch from 'fast-json-patch';
import { requireBrandFor } from '../brands/service.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';

import { JobFailure } from '../jobs/service.ts';
import { versionConflict } from '../kernel/errors.ts';
import type { Principal } from '../kernel/principal.ts';
import { formatBytes } from '../kernel/sizes.ts';
import { explainIssue } from '../validation.ts';
import { type MemoryRow, memoryOf, saveMemory } from './db.ts';
import {
  EngagementRules,
  MAX_MEMORY_BYTES,
  MEMORY_SECTIONS,
  MemoryDoc,
  type MemoryPatchInput,
  type MemoryPatchResult,
  type MemorySection,
  type MemoryState,
  type PatchOp,
  Visual,
} from './schema.ts';

export type MemoryCaller = Pick<Principal, 'accountId' | 'selectedBrandId' | 'credential'>;

/** Below this a section counts as a gap: too little is known to write in its voice. */
const CONFIDENT = 0.5;

/** What to add to fill each section, as a gap says it. */
const HINTS: Record<MemorySection, string> = {
  voice: 'add it whole: {"op":"add","path":"/voice","value":{"tone":["warm"],"persona":"..."}}',
  vocabulary:
    'add it whole: {"op":"add","path":"/vocabulary","value":{"preferred":[...],"banned":[...]}}',
  hashtags: 'add it whole: {"op":"add","path":"/hashtags","value":{"always":[...],"never":[...]}}',
  audience: 'add it whole: {"op":"add","path":"/audience","value":{"description":"..."}}',
  pillars:
    'add the themes the brand posts about: {"op":"add","path":"/pillars","value":[{"name":"..."}]}',
  visual:
    'add {"op":"add","path":"/visual","value":{"colors":[...],"fonts":[...]}}, or run the genome',
  links: 'add it whole: {"op":"add","path":"/links","value":{"site":"https://..."}}',
  examples: 'add past posts that went well (/examples), or import the history',
  habits: "import the history (POST /v1/brand-memory/import) to measure the brand's habits",
  platforms: 'add the platforms the brand prefers: {"op":"add","path":"/platforms","value":["x"]}',
};

/** Nothing said: undefined, an empty list, or an object whose every value is empty. */
const isEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  v === '' ||
  (Array.isArray(v)
    ? v.length === 0
    : typeof v === 'object' && Object.values(v as object).every(isEmpty));

/** The state clients read: the document with each section's confidence and the gaps. */
function stateOf(row: MemoryRow): MemoryState {
  const doc = row.doc as Record<string, unknown>;
  const sections = Object.fromEntries(
    MEMORY_SECTIONS.map((s) => [s, isEmpty(doc[s]) ? 0 : (row.confidence[s] ?? 0)]),
  ) as Record<MemorySection, number>;
  const overall = MEMORY_SECTIONS.reduce((sum, s) => sum + sections[s], 0) / MEMORY_SECTIONS.length;
  return {
    brand_id: row.brand_id,
    doc: row.doc as MemoryDoc,
    version: row.version,
    confidence: { overall: Math.round(overall * 100) / 100, sections },
    gaps: MEMORY_SECTIONS.filter((s) => sections[s] < CONFIDENT).map((s) => ({
      section: s,
      hint: HINTS[s],
    })),
    updated_at: row.updated_at.toISOString(),
  };
}

async function ownedBrand(pool: Pool, caller: MemoryCaller, brandId: string | undefined) {
  return (await requireBrandFor(pool, caller, brandId)).id;
}

/** GET /v1/brand-memory and MCP get_brand_memory. */
export async function getBrandMemory(
  pool: Pool,
  caller: MemoryCaller,
  brandId?: string,
): Promise<MemoryState> {
  const brand = await ownedBrand(pool, caller, brandId);
  return stateOf(await memoryOf(pool, caller.accountId, brand));
}

/** Why one op cannot apply to `doc`, or the document it makes. */
function applyOne(doc: unknown, op: PatchOp): { doc: unknown } | { reason: string } {
  const through = (p: string | undefined) =>
    p !== undefined && /(^|\/)(__proto__|prototype|constructor)(\/|$)/.test(p);
  if (through(op.path) || through(op.from))
    return { reason: 'paths through __proto__, constructor or prototype are refused' };
  if (op.op === 'move' && op.from !== undefined && op.path.startsWith(`${op.from}/`))
    return { reason: `a value cannot move into itself (${op.from} is a prefix of ${op.path})` };
  let next: unknown;
  try {
    // The schema checked each op has the members its kind needs (PatchOp's refinement).
    next = jsonpatch.applyOperation(doc, op as jsonpatch.Operation, true, false).newDocument;
  } catch (err) {
    const name = (err as { name?: string }).name ?? '';
    const reasons: Record<string, string> = {
      TEST_OPERATION_FAILED: 'the test failed: the value there differs',
      OPERATION_PATH_UNRESOLVABLE: `nothing is at ${op.path}`,
      OPERATION_FROM_UNRESOLVABLE: `nothing is at ${op.from ?? op.path}`,
      OPERATION_PATH_CANNOT_ADD: `${op.path} cannot be added: its parent does not exist (add the section whole first, e.g. /${op.path.split('/')[1]} with an object)`,
      OPERATION_PATH_ILLEGAL_ARRAY_INDEX: `${op.path} is not an index of that list`,
      OPERATION_VALUE_OUT_OF_BOUNDS: `${op.path} is past the end of that list`,
    };
    return {
      reason: reasons[name] ?? `${op.op} cannot apply at ${op.path} to the memory as it is`,
    };
  }
  const parsed = MemoryDoc.safeParse(next, { error: explainIssue });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { reason: `the result is refused at /${issue.path.join('/')}: ${issue.message}` };
  }
  if (Buffer.byteLength(JSON.stringify(parsed.data)) > MAX_MEMORY_BYTES)
    return { reason: `the memory would exceed ${formatBytes(MAX_MEMORY_BYTES)}` };
  return { doc: parsed.data };
}

/** The sections an op writes ("/voice/tone/0" → voice; a move also its source); "" is all. */
const sectionsOf = (op: PatchOp): string[] =>
  [op.path, ...(op.op === 'move' && op.from !== undefined ? [op.from] : [])].flatMap((p) => {
    const top = p.split('/')[1];
    return top === undefined ? [...MEMORY_SECTIONS] : [top];
  });

/**
 * PATCH /v1/brand-memory and MCP update_brand_memory: the ops in order on the current
 * document, each skipped (and counted, with why) when it fails or makes a document the schema
 * refuses; the whole request is one new version. A stale expected_version changes nothing.
 */
export async function patchBrandMemory(
  pool: Pool,
  caller: MemoryCaller,
  input: MemoryPatchInput,
): Promise<MemoryPatchResult> {
  const brand = await ownedBrand(pool, caller, input.brand_id);
  return withTransaction(pool, async (tx) => {
    const row = await memoryOf(tx, caller.accountId, brand, true);
    if (row.version !== input.expected_version) throw versionConflict(row.version);
    let doc: unknown = row.doc;
    const refusals: MemoryPatchResult['refusals'] = [];
    const stated = new Set<string>();
    for (const [index, op] of input.ops.entries()) {
      const applied = applyOne(doc, op);
      if ('reason' in applied) {
        refusals.push({ index, reason: applied.reason });
        continue;
      }
      doc = applied.doc;
      // What a caller wrote is stated, not inferred: full confidence in the sections touched.
      if (op.op !== 'test') for (const s of sectionsOf(op)) stated.add(s);
    }
    const answer = (saved: MemoryRow) => ({
      ...stateOf(saved),
      refused: refusals.length,
      refusals,
    });
    if (refusals.length === input.ops.length) return answer(row);
    const confidence = { ...row.confidence };
    for (const s of stated) confidence[s] = 1;
    return answer(await saveMemory(tx, brand, { doc, confidence, version: row.version + 1 }));
  });
}

/**
 * What generation takes from a brand's memory: the rules every draft follows, the voice a
 * model is told to write in, and the platforms the brand prefers.
 */
export async function voiceOf(db: Queryable, accountId: string, brandId: string) {
  const parsed = MemoryDoc.safeParse((await memoryOf(db, accountId, brandId)).doc);
  const doc: MemoryDoc = parsed.success ? parsed.data : {};
  return {
    banned: doc.vocabulary?.banned ?? [],
    always: doc.hashtags?.always ?? [],
    never: doc.hashtags?.never ?? [],
    tone: doc.voice?.tone ?? [],
    persona: doc.voice?.persona || null,
    examples: (doc.examples ?? []).slice(0, 5).map((e) => e.text),
    platforms: doc.platforms ?? [],
  };
}

/** The brand's engagement inbox rules (keywords, rules); none when unset. */
export async function engagementRulesOf(db: Queryable, accountId: string, brandId: string) {
  // Its own section only: another section that no longer parses does not switch rules off.
  const doc = (await memoryOf(db, accountId, brandId)).doc as Record<string, unknown>;
  const parsed = EngagementRules.safeParse(doc.engagement ?? {});
  return parsed.success ? parsed.data : {};
}

/** The brand's visual kit (colours with roles, fonts, logo) as templates use it. */
export async function brandKitOf(db: Queryable, accountId: string, brandId: string) {
  const doc = (await memoryOf(db, accountId, brandId)).doc as Record<string, unknown>;
  const visual = Visual.safeParse(doc.visual ?? {});
  return visual.success ? visual.data : {};
}

/** Whether a person stated `section` (confidence 1, and something is there). */
const statedBy = (row: Pick<MemoryRow, 'doc' | 'confidence'>, section: MemorySection) =>
  row.confidence[section] === 1 && !isEmpty((row.doc as Record<string, unknown>)[section]);

/**
 * What a job inferred (the history import, the genome) as one new version, in the caller's
 * transaction with the row locked: each section it found something for takes that, field by
 * field for an object section, with the job's confidence, unless a person stated the section
 * (confidence 1), which is kept and named in `kept`. Empty findings are not written.
 */
export async function recordInferred(
  tx: Queryable,
  accountId: string,
  brandId: string,
  found: Partial<MemoryDoc>,
  confidence: number,
): Promise<{ version: number; kept: MemorySection[]; written: MemorySection[] }> {
  const row = await memoryOf(tx, accountId, brandId, true);
  const doc = { ...(row.doc as Record<string, unknown>) };
  const next = { ...row.confidence };
  const kept: MemorySection[] = [];
  const written: MemorySection[] = [];
  for (const section of MEMORY_SECTIONS) {
    const value = (found as Record<string, unknown>)[section];
    if (isEmpty(value)) continue;
    if (statedBy(row, section)) {
      kept.push(section);
      continue;
    }
    const current = doc[section];
    doc[section] =
      !Array.isArray(value) && typeof value === 'object' && current && typeof current === 'object'
        ? {
            ...current,
            ...Object.fromEntries(Object.entries(value as object).filter(([, v]) => !isEmpty(v))),
          }
        : value;
    next[section] = confidence;
    written.push(section);
  }
  if (!written.length) return { version: row.version, kept, written };
  // Inferred examples give way to the size limit, the least engaging (the last) first.
  const examples = doc.examples;
  while (
    Buffer.byteLength(JSON.stringify(doc)) > MAX_MEMORY_BYTES &&
    written.includes('examples') &&
    Array.isArray(examples) &&
    examples.length
  )
    examples.pop();
  if (Buffer.byteLength(JSON.stringify(doc)) > MAX_MEMORY_BYTES)
    throw new JobFailure(
      `What was found would make the memory larger than ${formatBytes(MAX_MEMORY_BYTES)}; remove some of it (PATCH) and run again.`,
    );
  const saved = await saveMemory(tx, brandId, {
    doc: MemoryDoc.parse(doc),
    confidence: next,
    version: row.version + 1,
  });
  return { version: saved.version, kept, written };
}
