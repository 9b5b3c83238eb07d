// The 40 KB cap of MCP tool results (api/mcp/results.ts) on results that need more than
// dropping list items: a get_post of a Canvas layout of 20 pages, each with a long text and
// hundreds of doodle points, once kept `npm start`'s event loop busy for minutes (the API
// unanswered, SIGTERM ignored): every cut copied the whole result, and a cut text was cut
// again and again, its own marker counted as text. Then it answered 1.7 MB, over the cap.
import { describe, expect, it, vi } from 'vitest';
import { capResult, errorResult, RESULT_LIMIT_BYTES } from '../../api/mcp/results.ts';

const TEXT = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(18).slice(0, 1000);

/** A get_post result shaped like the reviewer's layout (20 story pages). */
function heavyPost(strokes = 20) {
  const pages = Array.from({ length: 20 }, (_, p) => ({
    layers: [
      {
        kind: 'doodle',
        strokes: Array.from({ length: strokes }, () => ({
          points: Array.from({ length: 34 }, (_, i) => [i * 30, p]),
        })),
      },
      { kind: 'text', text: `${p} ${TEXT}`, x: 0, y: 0, w: 1080, h: 1920, size: 40 },
    ],
  }));
  return {
    post: { id: '1', body: 'x', layout: { canvas: { aspect: 'story' }, pages }, layout_version: 1 },
  };
}

/**
 * Runs `f` with JSON.stringify counting the objects it serializes, and failing past `max`:
 * a bounded cap serializes the result a few times, not once per string it cuts (the loop
 * that froze the service never ended).
 */
function withSerializationsAtMost<T>(max: number, f: () => T): T {
  const stringify = JSON.stringify;
  let objects = 0;
  const spy = vi.spyOn(JSON, 'stringify').mockImplementation((value, ...rest) => {
    if (value && typeof value === 'object' && ++objects > max)
      throw new Error(`the result was serialized more than ${max} times`);
    return stringify(value, ...(rest as [undefined]));
  });
  try {
    return f();
  } finally {
    spy.mockRestore();
  }
}

const within = (text: string) =>
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(RESULT_LIMIT_BYTES);

describe('capResult', () => {
  it('leaves a layout too large for the limit out whole, and says where to read it', () => {
    const { result, text } = withSerializationsAtMost(10, () => capResult(heavyPost()));
    within(text);
    expect(JSON.parse(text)).toEqual(result);
    expect(result).toMatchObject({ truncated: true, omitted_fields: ['post.layout'] });
    expect(result.truncated_note).toMatch(/post\.layout: .*get_layers/);
    // The rest of the post is whole: nothing in it is cut, nothing half a layout.
    expect(result.post).toEqual({ id: '1', body: 'x', layout: null, layout_version: 1 });
  });

  it('cuts each long string once, from its original text, serializing a bounded number of times', () => {
    // The same texts under a member no other tool reads in parts: they are cut instead.
    const { post } = heavyPost(4);
    const document = { ...post, layout: undefined, document: post.layout };
    const { result, text } = withSerializationsAtMost(10, () => capResult({ post: document }));
    within(text);
    expect(JSON.parse(text)).toEqual(result);
    expect(result.truncated).toBe(true);
    expect(result.omitted_fields).toBeUndefined();
    const cut = (result.post as typeof document).document.pages.map((p) => p.layers[1]!.text!);
    const marked = cut.filter((t) => t.includes('… [truncated'));
    expect(marked.length).toBeGreaterThan(0);
    for (const [p, t] of cut.entries()) {
      const original = `${p} ${TEXT}`;
      if (!marked.includes(t)) {
        expect(t).toBe(original);
        continue;
      }
      const m = /^([\s\S]*)… \[truncated (\d+) characters\]$/.exec(t);
      expect(m).not.toBeNull();
      // One marker, counting what was cut from the original: never a marker cut again.
      expect(original.startsWith(m![1]!)).toBe(true);
      expect(m![1]!.length + Number(m![2])).toBe(original.length);
    }
  });

  it('leaves out by name what strings cannot bring under the limit (numbers, short strings)', () => {
    const points = Array.from({ length: 20_000 }, (_, i) => [i, i * 2]);
    const { result, text } = capResult({ id: 'x', series: { points }, small: { a: 1 } });
    within(text);
    expect(result).toMatchObject({
      id: 'x',
      series: null,
      small: { a: 1 },
      truncated: true,
      omitted_fields: ['series'],
    });
    expect(result.truncated_note).toMatch(/smaller parts/);
  });

  it('still cuts only as many of the longest strings as the limit needs', () => {
    const result = {
      items: 'x',
      notes: Array.from({ length: 60 }, (_, i) => `${i}`.padEnd(1000, 'y')),
    };
    const capped = capResult({ post: result });
    expect(Buffer.byteLength(capped.text)).toBeLessThanOrEqual(RESULT_LIMIT_BYTES);
    const notes = (capped.result.post as { notes: string[] }).notes;
    const cut = notes.filter((n) => n.includes('… [truncated'));
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.length).toBeLessThan(notes.length);
    expect(notes.filter((n) => n.length === 1000).length).toBe(notes.length - cut.length);
  });
});

describe('errorResult', () => {
  it('cuts a message too long for one result with a marker, keeping its _meta', () => {
    const result = errorResult({
      code: 'invalid',
      message: 'x'.repeat(200_000),
      meta: { code: 'invalid', limit: 5 },
    });
    within(JSON.stringify(result));
    expect(result._meta).toEqual({ code: 'invalid', limit: 5 });
    expect((result.content[0] as { text: string }).text).toMatch(
      /^invalid: x+… \[truncated \d+ characters\]$/,
    );
  });
});
