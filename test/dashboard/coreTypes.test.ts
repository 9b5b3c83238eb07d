// The dashboard takes its data's types from core's zod schemas instead of typing them again,
// and only their types: each import of core/ from web/src is type-only, so nothing of core (nor
// zod) reaches the bundle, except from a module of plain data that imports nothing (the
// platforms' names), which the dashboard shares as it is. That core's modules it reads need no
// Node is kept by the web tsconfig, which has no Node types (npm run typecheck).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/src');
const CORE = path.resolve(WEB, '../../core');

type Import = { file: string; typeOnly: boolean; names: string; target: string };

/** Every import and re-export of a core/ module in web/src. */
function coreImports(): Import[] {
  const found: Import[] = [];
  for (const entry of readdirSync(WEB, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(
      /^(?:import|export)\s+(type\s+)?([^;]*?)\s+from\s+'([^']+)';/gms,
    )) {
      const target = path.resolve(path.dirname(file), m[3]!);
      if (!target.startsWith(`${CORE}${path.sep}`)) continue;
      found.push({
        file: path.relative(WEB, file),
        typeOnly: !!m[1],
        names: m[2]!,
        target: path.relative(CORE, target),
      });
    }
  }
  return found;
}

/** The modules of core/ whose values the dashboard may take: plain data, importing nothing. */
const PLAIN_DATA = ['kernel/platformNames.ts'];

describe("the dashboard's types from core", () => {
  it("imports core's modules for their types only, values from plain data only", () => {
    const imports = coreImports();
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((i) => !i.typeOnly && !PLAIN_DATA.includes(i.target))).toEqual([]);
  });

  it.each(PLAIN_DATA)('core/%s is plain data: it imports nothing', (target) => {
    const source = readFileSync(path.join(CORE, target), 'utf8');
    expect(source).not.toMatch(/^\s*(import|export\s[^;]*\sfrom)\b/m);
  });

  it("names the platforms with core's one table, not a copy of its own", () => {
    const names = coreImports().filter((i) => i.target === 'kernel/platformNames.ts');
    expect(names.map((i) => [i.file, i.typeOnly, i.names])).toEqual([
      ['accounts.ts', false, '{ PLATFORM_NAMES }'],
    ]);
    const source = readFileSync(path.join(WEB, 'accounts.ts'), 'utf8');
    expect(source).not.toMatch(/PLATFORM_NAMES[^\n]*=/);
  });

  it("takes Post, PostView, Job and the session's view from core's schemas", () => {
    const from = (target: string) =>
      coreImports()
        .filter((i) => i.file === 'api.ts' && i.target === target)
        .map((i) => i.names)
        .join(' ');
    expect(from('posts/schema.ts')).toMatch(/\bPost\b.*\bPostView\b/s);
    expect(from('jobs/schema.ts')).toMatch(/\bJob\b/);
    expect(from('accounts/schema.ts')).toMatch(/\bSessionView\b/);
  });

  it.each([
    ['designs.ts', 'designs/schema.ts', ['DesignCard', 'DesignDetail']],
    ['designs.ts', 'templates/schema.ts', ['TemplateChoice']],
    ['designs.ts', 'video/schema.ts', ['VideoTemplateChoice']],
    ['usage.ts', 'usage/schema.ts', ['Usage']],
    ['apikeys.ts', 'apikeys/schema.ts', ['ApiKeyInfo', 'ApiKeyCreated']],
    ['accounts.ts', 'connections/schema.ts', ['ConnectedAccount']],
    ['drawings.ts', 'drawings/schema.ts', ['DrawingSummary', 'DrawingPage']],
    ['oauth.ts', 'oauth/schema.ts', ['AuthorizedClient', 'ConsentView']],
  ])('%s takes its types from core/%s', (file, target, names) => {
    const imported = coreImports()
      .filter((i) => i.file === file && i.target === target)
      .map((i) => i.names)
      .join(' ');
    for (const name of names) expect(imported).toMatch(new RegExp(`\\b${name}\\b`));
  });
});
