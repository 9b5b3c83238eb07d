// A design as an operation answers it (its state with its rendered pages' addresses), and the
// kind a post takes when it shows a layout.
import { assetContentUrl } from '../assets/service.ts';
import { inferKind, platformFitIssues } from '../kernel/platformFit.ts';
import type { Platform } from '../kernel/platforms.ts';
import { unpublishedPostsShowing } from '../posts/service.ts';
import { type Layout, pagesOf } from './layout.ts';
import type { DesignDeps, RenderedPages } from './renderWaits.ts';
import type { DesignRow, DesignState } from './schema.ts';

/**
 * The kind a post on `platform` gets when it shows `layout` (an image post while the platform
 * takes that many images on one post, else a carousel), and why it cannot, if it cannot.
 */
export function designFit(
  platform: Platform,
  layout: Layout,
  copy: { body: string; hashtags: string | null } = { body: '', hashtags: null },
) {
  const media = pagesOf(layout).map(() => 'image' as const);
  const kind = inferKind(platform, media);
  const issues = platformFitIssues({ platform, kind, ...copy, media }).map((i) =>
    i.loc[1] === 'asset_ids' || i.loc[1] === 'kind' ? { ...i, loc: ['body', 'layout'] } : i,
  );
  return { kind, issues };
}

export const pagePaths = (deps: Pick<DesignDeps, 'publicBaseUrl'>, ids: string[]) =>
  ids.map((id) => assetContentUrl(deps.publicBaseUrl, id));

/** The design's state with the pages its render gave (renderAndWait). */
export async function designState(
  deps: DesignDeps,
  design: DesignRow,
  postId: string | null,
  { pageIds, error, warnings }: RenderedPages,
): Promise<DesignState> {
  const linked = await unpublishedPostsShowing(deps.pool, design.id);
  return {
    design_id: design.id,
    post_id: postId,
    template: design.template,
    layout_version: design.layout_version,
    layout: design.layout,
    linked_post_ids: linked.map((p) => p.id),
    media_paths: pagePaths(deps, pageIds),
    render_error: error,
    render_warnings: warnings,
  };
}
