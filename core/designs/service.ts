// Designs and native-layout posts (SPEC.md "Native layout rules"): a post created with a
// `layout` (or a `template`) gets a design of its own and a render job in the same
// transaction; the API then waits, bounded, for the job's result and answers the rendered
// pages' addresses or why rendering failed. The draft stays either way.
import { z } from 'zod';
import { findOwnedAssets } from '../assets/db.ts';
import { assetContentUrl } from '../assets/service.ts';
import { actorOf } from '../audit/actor.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { invalid, notFound, ValidationFailed, type ValidationIssue } from '../errors.ts';
import { IdInput } from '../ids.ts';
import { CAPABILITIES } from '../platforms/capabilities.ts';
import { insertPost } from '../posts/db.ts';
import { CreatePostInput, PostReceipt } from '../posts/schema.ts';
import { brandFor, type Caller, toPost } from '../posts/service.ts';
import { enqueueRender, insertDesign, renderedPages } from './db.ts';
import { FONT_NAMES, isKnownFont } from './fonts.ts';
import { assignCids, Layout, pagesOf } from './layout.ts';
import { layoutFromTemplate, TEMPLATES } from './templates.ts';

export const NativePostInput = CreatePostInput.extend({
  layout: Layout.optional().describe('A native Canvas layout: the post becomes an image draft.'),
  template: z.string().max(64).optional().describe('Template to start from (default blank).'),
  design_id: IdInput.optional().describe('Link the post to an existing design of the brand.'),
});
export type NativePostInput = z.infer<typeof NativePostInput>;

export const NativePostReceipt = PostReceipt.extend({
  design_id: z.string().nullable(),
  layout_version: z.number().nullable(),
  media_paths: z.array(z.string()).describe('Served addresses of the rendered pages.'),
  render_error: z.string().nullable().describe('Why rendering failed or did not finish in time.'),
});
export type NativePostReceipt = z.infer<typeof NativePostReceipt>;

export const isNativePost = (input: NativePostInput) =>
  input.layout !== undefined || input.template !== undefined || input.design_id !== undefined;

/** Checks what the schema cannot: fonts, drawings, owned images. */
async function layoutIssues(
  pool: Pool,
  accountId: string,
  layout: Layout,
): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  const images: { id: string; loc: (string | number)[] }[] = [];
  const pages = pagesOf(layout);
  for (const [p, page] of pages.entries())
    for (const [i, layer] of page.layers.entries()) {
      const loc = ['body', 'layout', ...(layout.pages ? ['pages', p] : []), 'layers', i];
      if (layer.kind === 'text' && !isKnownFont(layer.font))
        issues.push({
          loc: [...loc, 'font'],
          msg: `unknown font "${layer.font}"; available: ${FONT_NAMES.join(', ')}`,
          type: 'unknown_font',
        });
      if (layer.kind === 'drawing')
        issues.push({ loc, msg: 'drawing layers are not available yet', type: 'not_available' });
      if (layer.kind === 'image') images.push({ id: layer.asset_id, loc: [...loc, 'asset_id'] });
    }
  if (images.length) {
    const found = await findOwnedAssets(
      pool,
      accountId,
      images.map((i) => i.id),
    );
    const owned = new Set(found.filter((a) => a.kind === 'image').map((a) => a.id));
    for (const image of images)
      if (!owned.has(image.id))
        issues.push({ loc: image.loc, msg: 'not an image asset of yours', type: 'not_found' });
  }
  return issues;
}

/** The post copy fills the template: its first line the headline, the rest the body. */
function slotsFrom(body: string) {
  const [headline = '', ...rest] = body.trim().split('\n');
  return { headline: headline.trim(), body: rest.join('\n').trim() };
}

/** How long the API waits for a render before answering with `render_error`. */
export const RENDER_WAIT_MS = 15_000;

/** Waits (LISTEN) until the design's `version` rendered or failed, or the time is up. */
export async function waitForRender(
  pool: Pool,
  designId: string,
  version: number,
  timeoutMs: number,
) {
  const client = await pool.connect();
  let wake: () => void = () => {};
  const woken = new Promise<void>((r) => {
    wake = r;
  });
  const onNotification = (n: { payload?: string }) => {
    if (n.payload === `${designId}:${version}`) wake();
  };
  client.on('notification', onNotification);
  try {
    await client.query('listen design_rendered');
    const state = async () =>
      (
        await client.query<{ rendered_version: number | null; render_error: string | null }>(
          'select rendered_version, render_error from designs where id = $1',
          [designId],
        )
      ).rows[0];
    let row = await state();
    if (row && row.rendered_version !== version && !row.render_error) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([woken, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
      clearTimeout(timer);
      row = await state();
    }
    if (!row) return { rendered: false, error: 'The design no longer exists.' };
    if (row.rendered_version === version) return { rendered: true, error: null };
    return {
      rendered: false,
      error:
        row.render_error ??
        `Rendering did not finish within ${timeoutMs / 1000} s; it goes on, retry PATCH /v1/posts/{id}/design later.`,
    };
  } finally {
    // The client goes back to the pool: neither the listener nor the LISTEN may outlive this
    // call, and a client that cannot UNLISTEN (a broken connection) is discarded.
    client.off('notification', onNotification);
    const broken = await client.query('unlisten design_rendered').then(
      () => undefined,
      (err: Error) => err,
    );
    client.release(broken);
  }
}

export type DesignDeps = { pool: Pool; publicBaseUrl: string; renderWaitMs?: number };

const pagePaths = (deps: DesignDeps, ids: string[]) =>
  ids.map((id) => assetContentUrl(deps.publicBaseUrl, id));

/** `POST /v1/posts` with `layout`, `template` or `design_id` (native layout rules 1-4). */
export async function createNativePost(
  deps: DesignDeps,
  caller: Caller,
  input: NativePostInput,
): Promise<NativePostReceipt> {
  const issues: ValidationIssue[] = [];
  const refuse = (field: string, msg: string) =>
    issues.push({ loc: ['body', field], msg, type: 'native_layout' });
  if (input.design_id !== undefined) {
    for (const f of ['layout', 'template', 'asset_ids'] as const)
      if (input[f] !== undefined) refuse(f, `must be omitted with design_id`);
  } else {
    for (const f of ['asset_ids', 'schedule_at'] as const)
      if (input[f] !== undefined) refuse(f, `must be omitted with a native layout`);
  }
  if (input.brand_id === undefined)
    refuse('brand_id', 'give the brand explicitly with a native layout or design_id');
  if (!CAPABILITIES[input.platform].kinds.includes('image'))
    refuse('platform', `${input.platform} does not take image posts`);
  const template = TEMPLATES.get(input.template ?? 'blank');
  if (!template) refuse('template', `unknown template "${input.template}"`);
  if (issues.length) throw new ValidationFailed(issues);
  const brandId = brandFor(caller, input.brand_id, 'brand_id');

  if (input.design_id !== undefined)
    throw invalid(['body', 'design_id'], 'linking to a design comes next');

  const given = input.layout ?? Layout.parse({});
  const base =
    given.layers === undefined && given.pages === undefined
      ? Layout.parse(layoutFromTemplate(template!, given.canvas.aspect, slotsFrom(input.body)))
      : given;
  const { layout, duplicates } = assignCids(base);
  if (duplicates.length)
    throw invalid(
      ['body', 'layout'],
      `layer cids must be unique; repeated: ${duplicates.join(', ')}`,
    );
  const found = await layoutIssues(deps.pool, caller.accountId, layout);
  if (found.length) throw new ValidationFailed(found);
  const kind = pagesOf(layout).length > 1 ? 'carousel' : 'image';
  if (!CAPABILITIES[input.platform].kinds.includes(kind))
    throw invalid(['body', 'layout', 'pages'], `${input.platform} does not take carousels`);

  const created = await withTransaction(deps.pool, async (tx) => {
    const design = await insertDesign(tx, {
      accountId: caller.accountId,
      brandId,
      template: input.template ?? 'blank',
      layout,
    });
    const post = await insertPost(
      tx,
      {
        ...input,
        accountId: caller.accountId,
        brandId,
        kind,
        hashtags: input.hashtags || null,
        scheduleAt: null,
      },
      actorOf(caller.credential),
    );
    if (!post) throw notFound('Brand');
    await tx.query('update posts set design_id = $2 where id = $1', [post.id, design.id]);
    await enqueueRender(tx, design.id, design.layout_version);
    return { post, design };
  });
  const { design, post } = created;
  const outcome = await waitForRender(
    deps.pool,
    design.id,
    design.layout_version,
    deps.renderWaitMs ?? RENDER_WAIT_MS,
  );
  const pages = outcome.rendered ? await renderedPages(deps.pool, design.id) : [];
  return {
    ...toPost({ ...post, asset_ids: pages }),
    design_id: design.id,
    layout_version: design.layout_version,
    media_paths: pagePaths(deps, pages),
    render_error: outcome.error,
  };
}
