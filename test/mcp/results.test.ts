// The 40 KB cap of MCP tool results (api/mcp/results.ts) on results it cannot bring under
// the limit by cutting strings: a get_post of a Canvas layout of 20 pages, each with a long
// text and hundreds of doodle points, once kept `npm start`'s event loop busy for minutes
// (the API unanswered, SIGTERM ignored): every cut copied the whole result, and a cut text
// was cut again and again, its own marker counted as text.
import { describe, expect, it, vi } from 'vitest';
import { capResult, RESULT_LIMIT_BYTES } from '../../api/mcp/results.ts';

const TEXT = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(18).slice(0, 1000);

/** A get_post result shaped like the reviewer's layout (20 story pages). */
function heavyPost() {
  const pages = Array.from({ length: 20 }, (_, p) => ({
    layers: [
      {
        kind: 'doodle',
        strokes: Array.from({ length: 20 }, () => ({
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

describe('capResult', () => {
  it('cuts each long string once, from its original text,, serializing the result a bounded number of times', () => {
    const { result, text } = withSerializationsAtMost(10, () => capResult(heavyPost()));
    expect(JSON.parse(text)).toEqual(result);
    expect(result.truncated).toBe(true);
    const layout = (result.post as { layout: { pages: { layers: { text?: string }[] }[] } }).layout;
    const texts = layout.pages.map((p) => p.layers[1]!.text!);
    for (const [p, t] of texts.entries()) {
      const original = `${p} ${TEXT}`;
      const m = /^([\s\S]*)… \[truncated (\d+) characters\]$/.exec(t);
      expect(m).not.toBeNull();
      // One marker, counting what was cut from the original: never a marker cut again.
      expect(original.startsWith(m![1]!)).toBe(true);
      expect(m![1]!.length + Number(m![2])).toBe(original.length);
    }
    // Doodle points are not strings: the result stays over the limit rather than lose them.
    expect(Buffer.byteLength(text)).toBeGreaterThan(RESULT_LIMIT_BYTES);
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
