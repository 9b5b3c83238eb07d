// The README is a front door to docs/: every relative link in it, in SECURITY.md and in
// docs/ must reach a file that exists and, when it names a section, a heading of that file,
// and every repository path they name in backticks must exist, so a moved file shows here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The markdown pages whose links are checked, relative to the repository root. */
function pages(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'SECURITY.md', ...docs];
}

/** The text outside fenced code blocks, where a `[x](y)` is a link and a `#` a heading. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page offers: its headings (repeats numbered as GitHub does) and ids. */
function anchors(file: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      found.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id[1]!);
  }
  return found;
}

/** The relative links of a page: `[text](target)`, inline code left out. */
function relativeLinks(file: string): string[] {
  const links: string[] = [];
  for (const line of prose(readFileSync(file, 'utf8'))) {
    const text = line.replace(/`[^`]*`/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
    }
  }
  return links;
}

/** What is wrong with one link of a page, or null when it resolves. */
function brokenLink(page: string, target: string): string | null {
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved =
    file === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), file);
  if (!existsSync(resolved)) return `${page}: ${target}: no file ${path.relative(ROOT, resolved)}`;
  if (anchor === undefined || statSync(resolved).isDirectory() || !resolved.endsWith('.md'))
    return null;
  if (anchors(resolved).has(anchor)) return null;
  return `${page}: ${target}: ${path.relative(ROOT, resolved)} has no heading #${anchor}`;
}

/** The top-level folders whose paths the pages name as `api/auth.ts`, `core/posts/`, ... */
const TREE = /^(?:api|core|workers|bin|bench|test|web|render|sql)\/[\w./-]*$/;

/** The inline code spans of some markdown that are a repository path and nothing else. */
function repoPaths(markdown: string): string[] {
  return [
    ...prose(markdown)
      .join('\n')
      .matchAll(/(`+)([^`]+?)\1/g),
  ]
    .map((m) => m[2]!.trim())
    .filter((span) => TREE.test(span));
}

describe('links between the README and docs/', () => {
  it('every relative link reaches an existing file and heading', () => {
    const broken = pages().flatMap((page) =>
      relativeLinks(path.join(ROOT, page))
        .map((target) => brokenLink(page, target))
        .filter((problem): problem is string => problem !== null),
    );
    expect(broken).toEqual([]);
  });

  it('every repository path named in backticks exists', () => {
    const missing = pages().flatMap((page) =>
      repoPaths(readFileSync(path.join(ROOT, page), 'utf8'))
        .filter((named) => !existsSync(path.join(ROOT, named)))
        .map((named) => `${page}: \`${named}\``),
    );
    expect(missing).toEqual([]);
  });

  it('takes a path from its backticks and leaves commands, globs and URLs out', () => {
    const markdown = [
      'In `core/posts/service.ts` and `api/session/`, not `npm test -- test/posts/`,',
      '`core/*/db.ts`, `/app/api/designs` or `GET /api/v1/statuses/:id`.',
      '```sh',
      'node `bin/inAFence.ts`',
      '```',
    ].join('\n');
    expect(repoPaths(markdown)).toEqual(['core/posts/service.ts', 'api/session/']);
  });

  it('reads headings the way GitHub anchors them', () => {
    expect(slug('Canvas (native designs)')).toBe('canvas-native-designs');
    expect(slug('Files: export, library, posts')).toBe('files-export-library-posts');
    expect(slug('`job_status` and its waits')).toBe('job_status-and-its-waits');
  });
});
