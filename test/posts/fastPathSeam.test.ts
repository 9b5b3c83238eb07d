// The remembered-key fast path of draft creation sits behind one seam of two modules: the
// bearer side (core/auth/rememberedKeys.ts: remembering a key, admitting on it) and the posts
// side (core/posts/draftAsKey.ts: the insert that confirms it). Only they reach the statements
// that remember a key or confirm one, so a change to creating a post does not touch auth, keys,
// batching and the REST route at once. This reads the source of core/, api/, workers/ and bin/
// for the fast path's pieces outside the seam and the file defining each.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPost } from '../../core/posts/service.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The seam's modules, and the pieces each may use. */
const SEAM: Record<string, string[]> = {
  'core/auth/rememberedKeys.ts': ['useApiKeyToRemember', 'stampRememberedKeyUse'],
  'core/posts/draftAsKey.ts': ['insertDraftAsKeyBatched'],
};

/** Each piece of the fast path, and where it is defined (or re-exported as a front door). */
const PIECES: Record<string, string[]> = {
  // The statements that confirm a remembered key while inserting a draft (posts side).
  insertDraftAsKey: ['core/posts/db.ts'],
  insertDraftAsKeyBatched: ['core/posts/db.ts'],
  // The lookup that remembers a key, and its stamp (bearer side).
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
      const src = code(readFileSync(path.join(ROOT, file), 'utf8'));
      return Object.entries(PIECES)
        .filter(([name, homes]) => !homes.includes(file) && !SEAM[file]?.includes(name))
        .filter(([name]) => new RegExp(`\\b${name}\\b`).test(src))
        .map(([name]) => `${file}: ${name}`);
    });
    expect(strays).toEqual([]);
  });

  it('each side of the seam uses its pieces, and posts does not depend on auth', () => {
    for (const [file, names] of Object.entries(SEAM)) {
      const src = code(readFileSync(path.join(ROOT, file), 'utf8'));
      expect(names.filter((name) => !new RegExp(`\\b${name}\\b`).test(src))).toEqual([]);
    }
    // The bearer side sits in auth and the posts side in posts: posts does not depend on auth.
    const posts = ['core/posts'].flatMap(sourceFiles);
    const intoAuth = posts.filter((file) =>
      /from '\.\.\/auth\//.test(code(readFileSync(path.join(ROOT, file), 'utf8'))),
    );
    expect(intoAuth).toEqual([]);
  });

  it('the REST routes leave the retry on a changed key to api/auth.ts (withRememberedKey)', () => {
    const routes = sourceFiles('api/rest').filter((file) =>
      /\b(KeyChanged|keyConfirmed)\b/.test(code(readFileSync(path.join(ROOT, file), 'utf8'))),
    );
    expect(routes).toEqual([]);
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
