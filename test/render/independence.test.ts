// render/ is pure rendering and reaches none of the service's own code outside it: no core/
// (it owns the layout types it draws), no api/ or workers/. Every path a file under render/
// names is checked, not only its import lines: a dynamic import(), a require(), and a file a
// worker thread loads (piscina's `filename`, a `new URL(..., import.meta.url)`) are strings
// too. Packages (bare specifiers such as 'zod' or 'node:fs') are allowed.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RENDER = path.join(ROOT, 'render');

const inside = (dir: string, target: string) => {
  const rel = path.relative(dir, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/**
 * The string literals of a JavaScript or TypeScript source: quoted strings and the fixed parts
 * of template literals, comments and regular expressions skipped. (TypeScript 7 has no JS
 * parser API to use here, and adding a parser package for a test is not worth it.)
 */
function stringLiterals(source: string): string[] {
  const found: string[] = [];
  // Open template literals' `${` expressions: the brace depth inside each.
  const templates: number[] = [];
  let prev = ''; // the last significant character of code, for telling a regex from a division
  let word = ''; // the last identifier, for `return /re/` and the like
  let i = 0;

  const readTemplate = () => {
    // At the character after a backtick or after the `}` closing an expression.
    let text = '';
    while (i < source.length) {
      const c = source[i]!;
      if (c === '\\') {
        text += source.slice(i, i + 2);
        i += 2;
      } else if (c === '`') {
        i++;
        found.push(text);
        prev = '`';
        return;
      } else if (c === '$' && source[i + 1] === '{') {
        i += 2;
        found.push(text);
        templates.push(0);
        prev = '{';
        return;
      } else {
        text += c;
        i++;
      }
    }
  };

  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === "'" || c === '"') {
      let text = '';
      i++;
      while (i < source.length && source[i] !== c) {
        if (source[i] === '\\') i++;
        text += source[i];
        i++;
      }
      i++;
      found.push(text);
      prev = c;
      word = '';
    } else if (c === '`') {
      i++;
      readTemplate();
      word = '';
    } else if (
      c === '/' &&
      (prev === '' ||
        '(,=:[!&|?{};+-*%<>~^'.includes(prev) ||
        /^(return|typeof|case|void|in|of|delete|throw|yield|await)$/.test(word))
    ) {
      // A regular expression literal: skip it, character classes included.
      let inClass = false;
      i++;
      while (i < source.length) {
        const r = source[i]!;
        if (r === '\\') i++;
        else if (r === '[') inClass = true;
        else if (r === ']') inClass = false;
        else if (r === '/' && !inClass) break;
        i++;
      }
      i++;
      while (/[a-z]/i.test(source[i] ?? '')) i++;
      prev = '/';
      word = '';
    } else if (c === '}' && templates.length && templates.at(-1) === 0) {
      templates.pop();
      i++;
      readTemplate();
      word = '';
    } else {
      if (templates.length && c === '{') templates[templates.length - 1]!++;
      if (templates.length && c === '}') templates[templates.length - 1]!--;
      if (/[A-Za-z0-9_$]/.test(c)) word = /[A-Za-z0-9_$]/.test(prev) ? word + c : c;
      if (!/\s/.test(c)) prev = c;
      i++;
    }
  }
  return found;
}

/** Where a string names a file or module of this repository, if it does. */
function target(literal: string, fromDir: string): string | undefined {
  if (literal === '.' || literal === '..' || /^\.\.?\//.test(literal))
    return path.resolve(fromDir, literal);
  if (literal.startsWith('file:')) return fileURLToPath(literal);
  if (path.isAbsolute(literal)) return literal;
  return undefined; // a package, or not a path at all
}

/** The strings in `source` (a file in `fromDir`) that reach this repository outside render/. */
function outsideReferences(source: string, fromDir: string): string[] {
  return stringLiterals(source).filter((literal) => {
    const to = target(literal, fromDir);
    return to !== undefined && inside(ROOT, to) && !inside(RENDER, to);
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.[cm]?[jt]sx?$/.test(entry.name) ? [full] : [];
  });
}

describe('render/ depends on nothing of the service outside it', () => {
  it('no file under render/ names a path in core/, api/, workers/ or elsewhere outside render/', () => {
    const files = sourceFiles(RENDER);
    expect(files.length).toBeGreaterThan(3);
    const offending = files.flatMap((file) =>
      outsideReferences(readFileSync(file, 'utf8'), path.dirname(file)).map(
        (literal) => `${path.relative(ROOT, file)}: '${literal}'`,
      ),
    );
    expect(offending).toEqual([]);
  });

  it('the check sees static, type-only and dynamic imports, require, re-exports and thread files', () => {
    const source = `
      // a comment naming '../core/comment.ts' is not a reference
      /* nor is '../core/block.ts' */
      import { renderPage } from './canvas.ts';
      import type { Layer } from '../core/designs/layout.ts';
      export * from "../core/ids.ts";
      const heavy = await import('../core/designs/renderJob.ts');
      const late = await import(\`../core/\${name}.ts\`);
      const legacy = require('../api/app.ts');
      const pool = new Piscina({ filename: new URL('../workers/thread.ts', import.meta.url).href });
      const dir = path.join(import.meta.dirname, '..', 'core');
      const fromRoot = '${path.join(ROOT, 'core', 'config.ts')}';
      const ratio = width / 2 / 'x'.length;
      const font = /-(latin|latin-ext)-(400|700)-normal\\.woff2$/;
      import sharp from 'sharp';
      import { readFile } from 'node:fs/promises';
    `;
    expect(outsideReferences(source, RENDER)).toEqual([
      '../core/designs/layout.ts',
      '../core/ids.ts',
      '../core/designs/renderJob.ts',
      '../core/',
      '../api/app.ts',
      '../workers/thread.ts',
      '..',
      path.join(ROOT, 'core', 'config.ts'),
    ]);
  });
});
