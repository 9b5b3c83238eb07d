// A video design row made straight from a layout, through storeDesign (so the plan's design
// limit applies as on every path), for tests that export or preview it without the MCP tools.
import type { Pool } from '../../core/db/pool.ts';
import { type Layout, VideoLayout, type VideoLayoutInput } from '../../core/designs/schema.ts';
import { storeDesign } from '../../core/designs/service.ts';

/** Makes a `blank` video design of `owner` (a plus account) holding `layout`; its row. */
export const makeVideoDesign = (
  pool: Pool,
  owner: { accountId: string; brandId: string },
  layout: VideoLayoutInput,
) =>
  storeDesign(
    pool,
    { accountId: owner.accountId, plan: 'plus' },
    {
      from: 'layout',
      brandId: owner.brandId,
      template: 'blank',
      layout: VideoLayout.parse(layout) as unknown as Layout,
    },
  );
