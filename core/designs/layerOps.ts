// edit_layers: ops applied in order to a copy of a layout, all or nothing. Pure: the caller
// checks fonts and owned assets on the result and saves it with its version check.
import { ValidationFailed } from '../kernel/errors.ts';
import { explainIssue, toValidationIssues } from '../validation.ts';
import { assignCids, Layer, type Layout, MAX_LAYERS_PER_PAGE, pagesOf } from './layout.ts';
import type { LayerOp } from './schema.ts';

type Loc = (string | number)[];

class OpFailed extends Error {
  readonly loc: Loc;
  constructor(loc: Loc, message: string) {
    super(message);
    this.loc = loc;
  }
}

function parseLayer(value: unknown, loc: Loc): Layer {
  const parsed = Layer.safeParse(value, { error: explainIssue });
  if (!parsed.success)
    throw new ValidationFailed(
      toValidationIssues(parsed.error, loc).map((i) => ({ ...i, type: 'invalid_layer' })),
    );
  return parsed.data;
}

/** Applies `ops` to `layout` and answers the new layout; throws a 422 naming the failing op. */
export function applyLayerOps(layout: Layout, ops: LayerOp[]): Layout {
  const pages = pagesOf(layout).map((p) => ({ ...p, layers: [...p.layers] }));

  const find = (
    op: { index?: number; cid?: string; clip_id?: string; page?: number },
    loc: Loc,
  ) => {
    if (op.clip_id !== undefined)
      throw new OpFailed(
        [...loc, 'clip_id'],
        'clip_id targets the clips of video designs; use index or cid',
      );
    if (op.cid !== undefined) {
      for (const [p, page] of pages.entries()) {
        const i = page.layers.findIndex((l) => l.cid === op.cid);
        if (i >= 0) {
          if (op.index !== undefined && op.index !== i)
            throw new OpFailed(
              [...loc, 'index'],
              `cid ${op.cid} is at index ${i}, not ${op.index}`,
            );
          return { page: p, index: i };
        }
      }
      throw new OpFailed([...loc, 'cid'], `no layer has cid ${op.cid}`);
    }
    if (op.index === undefined) throw new OpFailed(loc, 'give the index or the cid of a layer');
    const p = pageAt(op.page, loc);
    if (op.index >= pages[p]!.layers.length)
      throw new OpFailed(
        [...loc, 'index'],
        `page ${p} has ${pages[p]!.layers.length} layers (indexes 0-${pages[p]!.layers.length - 1})`,
      );
    return { page: p, index: op.index };
  };
  const pageAt = (page: number | undefined, loc: Loc) => {
    const p = page ?? 0;
    if (p >= pages.length)
      throw new OpFailed([...loc, 'page'], `the layout has ${pages.length} page(s)`);
    return p;
  };

  try {
    for (const [n, op] of ops.entries()) {
      const loc: Loc = ['ops', n];
      if (op.op === 'set') {
        for (const f of ['kind', 'cid'])
          if (f in op.fields)
            throw new OpFailed([...loc, 'fields', f], `${f} cannot change; delete and add instead`);
        const at = find(op, loc);
        const layers = pages[at.page]!.layers;
        layers[at.index] = parseLayer({ ...layers[at.index], ...op.fields }, [...loc, 'fields']);
      } else if (op.op === 'add') {
        const p = pageAt(op.page, loc);
        const layers = pages[p]!.layers;
        if (layers.length >= MAX_LAYERS_PER_PAGE)
          throw new OpFailed(loc, `at most ${MAX_LAYERS_PER_PAGE} layers a page`);
        const at = op.index ?? layers.length;
        if (at > layers.length)
          throw new OpFailed([...loc, 'index'], `insert position must be 0-${layers.length}`);
        layers.splice(at, 0, parseLayer(op.layer, [...loc, 'layer']));
      } else if (op.op === 'delete') {
        const at = find(op, loc);
        pages[at.page]!.layers.splice(at.index, 1);
      } else {
        const at = find(op, loc);
        const layers = pages[at.page]!.layers;
        if (op.to >= layers.length)
          throw new OpFailed([...loc, 'to'], `must be 0-${layers.length - 1}`);
        const [layer] = layers.splice(at.index, 1);
        layers.splice(op.to, 0, layer!);
      }
    }
  } catch (err) {
    if (err instanceof OpFailed)
      throw new ValidationFailed([{ loc: err.loc, msg: err.message, type: 'invalid_op' }]);
    throw err;
  }

  const next: Layout = layout.pages
    ? { ...layout, pages }
    : { ...layout, layers: pages[0]!.layers };
  const { layout: withCids, duplicates } = assignCids(next);
  if (duplicates.length)
    throw new ValidationFailed([
      {
        loc: ['ops'],
        msg: `layer cids must be unique; repeated: ${duplicates.join(', ')}`,
        type: 'invalid_op',
      },
    ]);
  return withCids;
}
