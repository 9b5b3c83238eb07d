// edit_layers: ops applied in order to a copy of a layout (a Canvas layout's pages, a video's
// one timeline), all or nothing. Pure: the caller checks fonts and owned assets on the result
// and saves it with its version check.
import { ValidationFailed } from '../kernel/errors.ts';
import { closestMatch, explainIssue, toValidationIssues } from '../validation.ts';
import { assignCids, Layer, type Layout, MAX_LAYERS_PER_PAGE, pagesOf } from './layout.ts';
import type { LayerOp } from './schema.ts';
import { MAX_VIDEO_LAYERS, parseVideoLayout, VideoLayer, type VideoLayout } from './videoLayout.ts';

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

/** Layer ops (edit_layers) on a video's one timeline; targets index, cid or clip_id. */
export function applyVideoLayerOps(layout: VideoLayout, ops: LayerOp[]): VideoLayout {
  const layers: unknown[] = [...layout.layers];
  const fail = (loc: Loc, msg: string): never => {
    throw new ValidationFailed([{ loc, msg, type: 'invalid_op' }]);
  };
  const find = (op: { index?: number; cid?: string; clip_id?: string }, loc: Loc) => {
    const current = layers as VideoLayer[];
    let at: number | undefined;
    if (op.clip_id !== undefined) {
      at = current.findIndex((l) => l.kind === 'video' && l.clip_id === op.clip_id);
      if (at < 0) {
        const clips = current.flatMap((l) => (l.kind === 'video' && l.clip_id ? [l.clip_id] : []));
        const match = closestMatch(op.clip_id, clips);
        fail(
          [...loc, 'clip_id'],
          `no video layer has clip_id ${op.clip_id}; ${match ? `did you mean ${match}? ` : ''}its clips: ${clips.join(', ') || 'none'}`,
        );
      }
    }
    if (op.cid !== undefined) {
      const byCid = current.findIndex((l) => l.cid === op.cid);
      if (byCid < 0) fail([...loc, 'cid'], `no layer has cid ${op.cid}`);
      // Two targets must name one layer: an op is never applied to a layer it did not mean.
      if (at !== undefined && byCid !== at)
        fail([...loc, 'cid'], `cid ${op.cid} and clip_id ${op.clip_id} name different layers`);
      at = byCid;
    }
    if (at === undefined && op.index === undefined)
      fail(loc, 'give the index, cid or clip_id of a layer');
    if (op.index !== undefined && at !== undefined && op.index !== at)
      fail([...loc, 'index'], `that layer is at index ${at}, not ${op.index}`);
    const index = at ?? op.index!;
    if (index >= current.length)
      fail(
        [...loc, 'index'],
        `the video has ${current.length} layers (indexes 0-${current.length - 1})`,
      );
    return index;
  };
  const parseLayer = (value: unknown, loc: Loc) => {
    const parsed = VideoLayer.safeParse(value, { error: explainIssue });
    if (!parsed.success)
      throw new ValidationFailed(
        toValidationIssues(parsed.error, loc).map((i) => ({ ...i, type: 'invalid_layer' })),
      );
    return parsed.data;
  };
  for (const [n, op] of ops.entries()) {
    const loc: Loc = ['ops', n];
    if (op.page !== undefined && op.page !== 0)
      fail([...loc, 'page'], 'a video has one timeline (page 0)');
    if (op.op === 'set') {
      for (const f of ['kind', 'cid', 'clip_id'])
        if (f in op.fields)
          fail([...loc, 'fields', f], `${f} cannot change; delete and add instead`);
      const i = find(op, loc);
      layers[i] = parseLayer({ ...(layers[i] as object), ...op.fields }, [...loc, 'fields']);
    } else if (op.op === 'add') {
      if (layers.length >= MAX_VIDEO_LAYERS)
        fail(loc, `at most ${MAX_VIDEO_LAYERS} layers in a video`);
      const at = op.index ?? layers.length;
      if (at > layers.length) fail([...loc, 'index'], `insert position must be 0-${layers.length}`);
      layers.splice(at, 0, parseLayer(op.layer, [...loc, 'layer']));
    } else if (op.op === 'delete') {
      layers.splice(find(op, loc), 1);
    } else {
      const i = find(op, loc);
      if (op.to >= layers.length) fail([...loc, 'to'], `must be 0-${layers.length - 1}`);
      const [layer] = layers.splice(i, 1);
      layers.splice(op.to, 0, layer);
    }
  }
  // The whole timeline again: windows within the duration, motions within their windows.
  return parseVideoLayout({ ...layout, layers }, ['layout']);
}
