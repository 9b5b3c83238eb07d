// SQL for designs. Their rendered pages are assets: core/assets/db.ts reads and writes them,
// keeping the account's storage counter right.
import { designPageIds, movePagesShownBy } from '../assets/db.ts';
import type { Queryable } from '../db/pool.ts';
import type { Kind, Platform } from '../platforms/capabilities.ts';
import type { Layout } from './layout.ts';

export type DesignRow = {
  id: string;
  account_id: string;
  brand_id: string;
  template: string;
  layout: Layout;
  layout_version: number;
  rendered_version: number | null;
  render_error: string | null;
};

export async function insertDesign(
  db: Queryable,
  d: { accountId: string; brandId: string; template: string; layout: Layout },
): Promise<DesignRow> {
  const { rows } = await db.query<DesignRow>(
    `insert into designs (account_id, brand_id, template, layout) values ($1, $2, $3, $4)
     returning *`,
    [d.accountId, d.brandId, d.template, JSON.stringify(d.layout)],
  );
  return rows[0]!;
}

/** The rendered pages of a design, in page order. */
export const renderedPages = designPageIds;

/** The account's design, locked for the rest of the transaction (`share`: others may read). */
export async function lockDesign(
  db: Queryable,
  accountId: string,
  designId: string,
  mode: 'share' | 'update',
): Promise<DesignRow | undefined> {
  const { rows } = await db.query<DesignRow>(
    `select * from designs where id = $1 and account_id = $2 for ${mode === 'share' ? 'share' : 'update'}`,
    [designId, accountId],
  );
  return rows[0];
}

export async function findDesign(
  db: Queryable,
  accountId: string,
  designId: string,
): Promise<DesignRow | undefined> {
  const { rows } = await db.query<DesignRow>(
    'select * from designs where id = $1 and account_id = $2',
    [designId, accountId],
  );
  return rows[0];
}

export type DesignPostRow = {
  id: string;
  status: string;
  design_id: string | null;
  platform: Platform;
  body: string;
};

/**
 * The account's post with what a design edit needs, locked against concurrent changes
 * (`no key update`: a render inserting its attachments only needs a key-share lock).
 */
export async function lockPostOfDesign(
  db: Queryable,
  accountId: string,
  postId: string,
): Promise<DesignPostRow | undefined> {
  const { rows } = await db.query<DesignPostRow>(
    `select id::text, status, design_id::text, platform, body from posts
     where id = $1 and account_id = $2 for no key update`,
    [postId, accountId],
  );
  return rows[0];
}

/** The design a post shows, if any (no lock: for reads). */
export async function designIdOfPost(
  db: Queryable,
  accountId: string,
  postId: string,
): Promise<{ design_id: string | null } | undefined> {
  const { rows } = await db.query<{ design_id: string | null }>(
    'select design_id::text from posts where id = $1 and account_id = $2',
    [postId, accountId],
  );
  return rows[0];
}

const UNPUBLISHED = `status not in ('published', 'publishing')`;

/** The posts that show this design and may still change, in id order. */
export async function unpublishedPostsOf(
  db: Queryable,
  designId: string,
): Promise<{ id: string; platform: Platform }[]> {
  const { rows } = await db.query<{ id: string; platform: Platform }>(
    `select id::text, platform from posts where design_id = $1 and ${UNPUBLISHED} order by id`,
    [designId],
  );
  return rows;
}

/** Whether posts other than `postId` show this design (published ones included). */
export async function isShared(db: Queryable, designId: string, postId: string) {
  const { rows } = await db.query('select 1 from posts where design_id = $1 and id <> $2 limit 1', [
    designId,
    postId,
  ]);
  return rows.length > 0;
}

/** A copy of a design (layout, template, version) that is not rendered yet. */
export async function copyDesign(db: Queryable, designId: string): Promise<DesignRow> {
  const { rows } = await db.query<DesignRow>(
    `insert into designs (account_id, brand_id, template, layout, layout_version)
     select account_id, brand_id, template, layout, layout_version from designs where id = $1
     returning *`,
    [designId],
  );
  return rows[0]!;
}

/**
 * Published (and publishing) posts never change: before their design is edited they move to a
 * frozen copy of it, taking the rendered pages they show with them.
 */
export async function freezePublishedPosts(db: Queryable, designId: string): Promise<void> {
  const { rows } = await db.query<{ frozen_id: string | null; post_ids: string[] }>(
    `with moved as (
       select id from posts where design_id = $1 and not (${UNPUBLISHED})
     ), frozen as (
       insert into designs (account_id, brand_id, template, layout, layout_version,
                            rendered_version, render_error)
       select account_id, brand_id, template, layout, layout_version, rendered_version, render_error
       from designs where id = $1 and exists (select 1 from moved)
       returning id
     ), relinked as (
       update posts set design_id = (select id from frozen) where id in (select id from moved)
     )
     select (select id::text from frozen) as frozen_id, array(select id::text from moved) as post_ids`,
    [designId],
  );
  const { frozen_id, post_ids } = rows[0]!;
  if (frozen_id) await movePagesShownBy(db, designId, frozen_id, post_ids);
}

/** Saves a new layout: the version moves on and the last render error is forgotten. */
export async function saveLayout(
  db: Queryable,
  designId: string,
  change: { layout: Layout; template: string },
): Promise<DesignRow> {
  const { rows } = await db.query<DesignRow>(
    `update designs set layout = $2, template = $3, layout_version = layout_version + 1,
       render_error = null, updated_at = now()
     where id = $1 returning *`,
    [designId, JSON.stringify(change.layout), change.template],
  );
  return rows[0]!;
}

/** A render retry of the current layout: the last error is forgotten so a waiter waits. */
export async function clearRenderError(db: Queryable, designId: string): Promise<void> {
  await db.query('update designs set render_error = null where id = $1', [designId]);
}

/** Points a post at a design and attaches the design's rendered pages, in order. */
export async function linkPost(db: Queryable, postId: string, designId: string): Promise<void> {
  await db.query('update posts set design_id = $2 where id = $1', [postId, designId]);
  await db.query('delete from post_assets where post_id = $1', [postId]);
  await db.query(
    `insert into post_assets (post_id, position, asset_id)
     select $1, n - 1, id from unnest($2::bigint[]) with ordinality as t(id, n)`,
    [postId, await designPageIds(db, designId)],
  );
}

/** A post's kind follows the pages of its design (image or carousel). */
export async function setPostKind(db: Queryable, postId: string, kind: Kind) {
  await db.query('update posts set kind = $2 where id = $1', [postId, kind]);
}
