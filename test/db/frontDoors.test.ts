// Each concept behind its front door, and core/ a DAG (STYLE.md). This reads the imports of
// api/, core/, workers/ and bin/ (static, `import type`, re-exports and `import()` alike) and
// fails on a reach into another concept's private files, on concepts importing each other in a
// loop, on a kernel file importing anything of core/ outside the kernel, and on plumbing
// importing a concept.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Below every concept: plans, platforms and their fit, ids, errors, time, sizes, and the
 * caller (Principal, its Credential, an operation's Requirement), which every concept takes.
 */
const KERNEL = 'core/kernel';

/**
 * Folders of core/ that are plumbing rather than concepts: they own no domain rule, every
 * file of theirs may be imported, and they are not part of the concept graph.
 */
const PLUMBING = new Set(['core/db', 'core/storage', 'core/outbound', 'core/media', KERNEL]);

/** Every concept's front door: its operations and its types. */
const DOOR = ['service.ts', 'schema.ts'];

/**
 * Further modules a concept opens to others, each with why it is a door of its own rather than
 * a part of service.ts. A db file is never one: its SQL is private to the concept.
 */
const PUBLIC: Record<string, string> = {
  'core/jobs/tasks.ts':
    'the one catalogue of task names, payloads and enqueue helpers (STYLE.md): every concept enqueues through it and schemas name its payloads, so it stands apart from the jobs service',
};

/**
 * Doors that hand on statements of their own db.ts, each with why an operation wrapping them
 * would not do.
 */
const DB_HANDED_ON: Record<string, string> = {
  'core/apikeys/service.ts':
    'the fast path’s one shared statement confirms the key in the same statement that inserts the draft (posts pastes the SQL fragment), and the bearer lookups are prepared statements on every request',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.tsx?$/.test(e.name) ? [rel.split(path.sep).join('/')] : [];
  });
}

/** Comments removed, so prose such as "see ../posts/db.ts" is not taken for an import. */
const code = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** `export ... from '...'`: a module handing on another's exports as its own. */
const REEXPORT =
  /\bexport\s+(?:type\s+)?(?:\*|\{[^}]*\})(?:\s+as\s+\w+)?\s+from\s+['"]([^'"]+)['"]/g;

type Edge = { from: string; to: string };

function importsOf(file: string): Edge[] {
  const src = code(readFileSync(path.join(ROOT, file), 'utf8'));
  return [...src.matchAll(IMPORT)].map((m) => ({
    from: file,
    to: path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!)),
  }));
}

/** The concept a file of core/ belongs to (its first folder), or undefined outside one. */
function conceptOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] !== 'core' || parts.length < 3) return undefined;
  const folder = `core/${parts[1]}`;
  return PLUMBING.has(folder) ? undefined : folder;
}

const edges = [...new Set(['api', 'core', 'workers', 'bin'].flatMap(sourceFiles))]
  .flatMap(importsOf)
  .filter((e) => e.to.startsWith('core/'));

const crossing = edges.filter((e) => {
  const to = conceptOf(e.to);
  return to !== undefined && to !== conceptOf(e.from);
});

describe('a concept is reached only through its front door', () => {
  it('no file imports another concept’s private modules (its db.ts above all)', () => {
    const reaches = crossing
      .filter((e) => !DOOR.includes(path.posix.basename(e.to)) && !(e.to in PUBLIC))
      .map((e) => `${e.from} -> ${e.to}`);
    expect([...new Set(reaches)]).toEqual([]);
  });

  it('no front door hands on its own db.ts (a door offers operations, not statements)', () => {
    const doors = sourceFiles('core').filter(
      (f) => conceptOf(f) !== undefined && (DOOR.includes(path.posix.basename(f)) || f in PUBLIC),
    );
    const handedOn = doors.flatMap((f) =>
      [...code(readFileSync(path.join(ROOT, f), 'utf8')).matchAll(REEXPORT)]
        .filter((m) => path.posix.basename(m[1]!) === 'db.ts')
        .map(() => f),
    );
    expect([...new Set(handedOn)].filter((f) => !(f in DB_HANDED_ON))).toEqual([]);
    // An exception no longer needed goes from the list.
    expect(Object.keys(DB_HANDED_ON).filter((f) => !handedOn.includes(f))).toEqual([]);
  });

  it('every named public module exists, is no db file, and is used from outside', () => {
    const used = new Set(crossing.map((e) => e.to));
    const wrong = Object.keys(PUBLIC).filter((f) => /db\.ts$/i.test(f) || !used.has(f));
    expect(wrong).toEqual([]);
  });
});

describe('core/ is a DAG', () => {
  const graph = new Map<string, Map<string, Edge[]>>();
  for (const e of crossing) {
    const a = conceptOf(e.from);
    if (a === undefined) continue;
    const b = conceptOf(e.to)!;
    const out = graph.get(a) ?? new Map<string, Edge[]>();
    if (!out.get(b)?.some((d) => d.from === e.from && d.to === e.to)) {
      out.set(b, [...(out.get(b) ?? []), e]);
    }
    graph.set(a, out);
  }
  const show = (es: Edge[]) => es.map((e) => `${e.from} -> ${e.to}`).join(', ');

  it('no two concepts import each other', () => {
    const pairs: string[] = [];
    for (const [a, out] of graph) {
      for (const [b, there] of out) {
        const back = graph.get(b)?.get(a);
        if (a < b && back) pairs.push(`${a} <-> ${b}: ${show(there)}; ${show(back)}`);
      }
    }
    expect(pairs.sort()).toEqual([]);
  });

  it('no longer loop runs through the concepts', () => {
    // Tarjan's strongly connected components: each one of more than one concept is a loop.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const loops: string[][] = [];
    const visit = (v: string) => {
      index.set(v, index.size);
      low.set(v, index.get(v)!);
      stack.push(v);
      for (const w of graph.get(v)?.keys() ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          component.push(w);
        } while (w !== v);
        if (component.length > 1) loops.push(component.sort());
      }
    };
    for (const v of graph.keys()) if (!index.has(v)) visit(v);
    const described = loops.map((loop) => {
      const inside = loop.flatMap((a) =>
        [...(graph.get(a) ?? [])].filter(([b]) => loop.includes(b)).map(([b]) => `${a} -> ${b}`),
      );
      return `${loop.join(', ')} (${inside.join('; ')})`;
    });
    expect(described).toEqual([]);
  });
});

describe('the kernel stands below every concept', () => {
  it('no kernel file imports anything of core/ outside the kernel', () => {
    const upward = edges
      .filter((e) => e.from.startsWith(`${KERNEL}/`) && !e.to.startsWith(`${KERNEL}/`))
      .map((e) => `${e.from} -> ${e.to}`);
    expect(upward).toEqual([]);
  });

  it('no plumbing (core/db, storage, outbound, media, top-level core/*.ts) imports a concept', () => {
    // Plumbing is left out of the concept graph, so a loop through it would go unseen.
    const plumbing = (f: string) =>
      f.startsWith('core/') && (f.split('/').length === 2 || conceptOf(f) === undefined);
    const upward = edges
      .filter((e) => plumbing(e.from) && conceptOf(e.to) !== undefined)
      .map((e) => `${e.from} -> ${e.to}`);
    expect(upward).toEqual([]);
  });
});
