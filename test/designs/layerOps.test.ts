// edit_layers ops on a layout (core/designs/layerOps.ts): applied in order, all or nothing,
// every untouched layer keeps its cid, and each refusal names the failing op.
import { describe, expect, it } from 'vitest';
import { applyLayerOps } from '../../core/designs/layerOps.ts';
import { Layout } from '../../core/designs/layout.ts';
import type { LayerOp } from '../../core/designs/schema.ts';
import { ValidationFailed } from '../../core/kernel/errors.ts';

const layout = Layout.parse({
  canvas: { aspect: 'square' },
  layers: [
    { kind: 'shape', shape: 'rect', x: 0, y: 0, w: 100, h: 100, fill: '#ff0000', cid: 'bg' },
    { kind: 'text', text: 'Hello', x: 10, y: 10, w: 500, cid: 'title' },
    { kind: 'shape', shape: 'ellipse', x: 50, y: 50, w: 40, h: 40, fill: '#00ff00', cid: 'dot' },
  ],
});

const refusal = (ops: LayerOp[]) => {
  try {
    applyLayerOps(layout, ops);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationFailed);
    return (err as ValidationFailed).issues[0]!;
  }
  throw new Error('expected a refusal');
};

describe('applyLayerOps', () => {
  it('applies set, add, delete and move in order, keeping untouched cids', () => {
    const next = applyLayerOps(layout, [
      { op: 'set', cid: 'title', fields: { text: 'Bye', color: '#123456' } },
      {
        op: 'add',
        index: 0,
        layer: { kind: 'shape', shape: 'rect', x: 1, y: 2, w: 3, h: 4 },
      },
      { op: 'delete', cid: 'dot' },
      { op: 'move', cid: 'bg', to: 2 },
    ]);
    const layers = next.layers!;
    expect(layers.map((l) => l.cid).slice(1)).toEqual(['title', 'bg']);
    expect(layers[0]!.cid).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(layers[1]).toMatchObject({ text: 'Bye', color: '#123456', x: 10, size: 48 });
    // The input is not changed: a refused edit leaves nothing half-done.
    expect(layout.layers!.map((l) => l.cid)).toEqual(['bg', 'title', 'dot']);
  });

  it('targets by index on a page of a carousel, or by cid on any page', () => {
    const pages = Layout.parse({
      pages: [
        { layers: [{ kind: 'text', text: 'one', x: 0, y: 0, w: 10, cid: 'a' }] },
        { layers: [{ kind: 'text', text: 'two', x: 0, y: 0, w: 10, cid: 'b' }] },
      ],
    });
    const next = applyLayerOps(pages, [
      { op: 'set', page: 1, index: 0, fields: { text: 'deux' } },
      { op: 'set', cid: 'a', fields: { text: 'un' } },
    ]);
    expect(next.pages!.map((p) => (p.layers[0] as { text: string }).text)).toEqual(['un', 'deux']);
  });

  it.each([
    ['an index past the end', [{ op: 'delete', index: 3 }], ['ops', 0, 'index'], /3 layers/],
    ['an unknown cid', [{ op: 'move', cid: 'nope', to: 0 }], ['ops', 0, 'cid'], /no layer/],
    [
      'a changed kind',
      [{ op: 'set', index: 0, fields: { kind: 'text' } }],
      ['ops', 0, 'fields', 'kind'],
      /cannot change/,
    ],
    [
      'a field the kind does not have',
      [{ op: 'set', index: 0, fields: { text: 'x' } }],
      ['ops', 0, 'fields'],
      /./,
    ],
    [
      'a later op failing after earlier ones succeeded',
      [
        { op: 'delete', cid: 'dot' },
        { op: 'set', cid: 'dot', fields: { x: 1 } },
      ],
      ['ops', 1, 'cid'],
      /no layer/,
    ],
    [
      'an added layer reusing a cid',
      [{ op: 'add', layer: { kind: 'text', text: 'x', x: 0, y: 0, w: 1, cid: 'title' } }],
      ['ops'],
      /repeated: title/,
    ],
    ['no target', [{ op: 'delete' }], ['ops', 0], /index or the cid/],
  ] as [string, LayerOp[], unknown[], RegExp][])('refuses %s', (_name, ops, loc, msg) => {
    const issue = refusal(ops);
    expect(issue.loc).toEqual(loc);
    expect(issue.msg).toMatch(msg);
  });

  it('refuses the 161st layer of a page', () => {
    const full = Layout.parse({
      layers: Array.from({ length: 160 }, () => ({
        kind: 'shape',
        shape: 'rect',
        x: 0,
        y: 0,
        w: 1,
        h: 1,
      })),
    });
    expect(() =>
      applyLayerOps(full, [
        { op: 'add', layer: { kind: 'shape', shape: 'rect', x: 0, y: 0, w: 1, h: 1 } },
      ]),
    ).toThrow(/at most 160 layers/);
  });
});

describe('doodle points', () => {
  const doodle = (points: unknown[]) => ({
    layers: [{ kind: 'doodle', x: 0, y: 0, w: 100, strokes: [{ points }] }],
  });

  it('take [x, y] and [x, y, pressure]', () => {
    const parsed = Layout.parse(
      doodle([
        [1, 2],
        [3, 4, 0.5],
      ]),
    );
    expect(parsed.layers![0]).toMatchObject({
      strokes: [
        {
          points: [
            [1, 2],
            [3, 4, 0.5],
          ],
        },
      ],
    });
  });

  it('name the point and the member that is wrong, not just "Invalid input"', () => {
    const result = Layout.safeParse(doodle([[1, 2], [3, 4, 7], [5]]));
    const issues = result.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues).toEqual([
      expect.stringMatching(/^layers\.0\.strokes\.0\.points\.1\.2: .*<=1/),
      expect.stringMatching(/^layers\.0\.strokes\.0\.points\.2: .*>=2 items/),
    ]);
  });
});
