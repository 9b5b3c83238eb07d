// Creates a design master for a brand: laid out from a template (blank unless one is named),
// stored under the plan's design limit and rendered, with no post and no schedule. Callers: MCP
// create_design and the dashboard's new design.
import { requireOwnedBrandByUuid } from '../brands/service.ts';
import { withTransaction } from '../db/pool.ts';
import type { DesignCaller, DesignState } from '../designs/schema.ts';
import {
  checkedLayout,
  type DesignDeps,
  designState,
  renderAndWait,
  storeDesign,
} from '../designs/service.ts';
import { enqueueRender } from '../jobs/tasks.ts';
import { invalid } from '../kernel/errors.ts';
import { templateFill, templateFor, templateLayout } from './fill.ts';
import type { CreateDesignInput } from './schema.ts';

/** A design master for a brand, rendered, with no post and no schedule. */
export async function createDesign(
  deps: DesignDeps,
  caller: DesignCaller,
  input: CreateDesignInput,
): Promise<DesignState> {
  const { design, ...pages } = await renderAndWait(deps, caller.accountId, async () => ({
    design: await designFromTemplate(deps, caller, input),
  }));
  return designState(deps, design, null, pages);
}

/** The design checked, stored and its render queued. */
async function designFromTemplate(
  deps: DesignDeps,
  caller: DesignCaller,
  input: CreateDesignInput,
) {
  const brandId = (await requireOwnedBrandByUuid(deps.pool, caller.accountId, input.brand_uuid)).id;
  const template = templateFor(caller, input.template, ['template']);
  if (input.headline !== undefined && input.slots?.headline !== undefined)
    throw invalid(['headline'], 'give the headline or slots.headline, not both');
  const shorthand = { values: { headline: input.headline ?? null }, at: () => ['headline'] };
  const fill = templateFill(
    template,
    input.slots,
    ['slots'],
    ...(input.headline === undefined ? [] : [shorthand]),
  );
  const laid = await templateLayout(
    deps.pool,
    caller.accountId,
    brandId,
    template,
    input.canvas,
    fill,
    ['slots'],
  );
  const layout = await checkedLayout(deps.pool, caller.accountId, laid, ['template']);
  return withTransaction(deps.pool, async (tx) => {
    const row = await storeDesign(tx, caller, {
      from: 'layout',
      brandId,
      template: template.name,
      layout,
    });
    await enqueueRender(tx, row);
    return row;
  });
}
