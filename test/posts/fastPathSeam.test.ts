// The remembered-key fast path of draft creation sits behind one module,
// core/posts/rememberedKeys.ts: the bearer layer and createPost call it, and only it reaches
// the statements that remember a key or confirm one, so a change to creating a post does not
// touch auth, keys, batching and the REST route at once. This reads the source of core/, api/,
// workers/ and bin/ for the fast path's pieces outside the seam and the file defining each.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPost } from '../../core/posts/service.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SEAM = 'core/posts/rememberedKeys.ts';

/** Each piece of the fast path, and where it is defined (or re-exported as a front door). */
const PIECES: Record<string, string[]> = {
  // The statements that confirm a remembered key while inserting a draft.
  insertDraftAsKey: ['core/posts/db.ts'],
  insertDraftAsKeyBatched: ['core/posts/db.ts'],
  // The lookup that remembers a key, and its stamp.
  useApiKeyToRemember: ['core/apikeys/db.ts', 'core/apikeys/service.ts'],
  stampRememberedKeyUse: ['core/apikeys/db.ts', 'core/apikeys/service.ts'],
  // The SQL by which a statement confirms a remembered key.
  keyStillHolds: ['core/apikeys/db.ts', 'core/apikeys/service.ts', 'core/posts/db.ts'],
  joinKeysStillHeld: ['core/apikeys/db.ts', 'core/apikeys/service.ts', 'core/posts/db.ts'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return e.name.endsWith('.ts') ? [rel.split(path.sep).join('/')] : [];
  });
}

/** Comments removed, so prose naming a piece is not taken for a use of it. */
const code = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

describe('the remembered-key fast path is one seam', () => {
  it('only the seam uses the statements that remember or confirm a key', () => {
    const files = ['core', 'api', 'workers', 'bin'].flatMap(sourceFiles);
    const strays = files.flatMap((file) => {
      if (file === SEAM) return [];
      const src = code(readFileSync(path.join(ROOT, file), 'utf8'));
      return Object.entries(PIECES)
        .filter(([name, homes]) => !homes.includes(file) && new RegExp(`\\b${name}\\b`).test(src))
        .map(([name]) => `${file}: ${name}`);
    });
    expect(strays).toEqual([]);
  });

  it('no file outside core/apikeys imports its private db.ts', () => {
    const files = ['core', 'api', 'workers', 'bin'].flatMap(sourceFiles);
    const reaches = files.filter(
      (file) =>
        !file.startsWith('core/apikeys/') &&
        /from '[^']*\/apikeys\/db\.ts'/.test(readFileSync(path.join(ROOT, file), 'utf8')),
    );
    expect(reaches).toEqual([]);
  });

  it('createPost takes no remembered key of its own: (pool, caller, input)', () => {
    expect(createPost.length).toBe(3);
  });
});
