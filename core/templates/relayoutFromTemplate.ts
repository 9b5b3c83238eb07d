// A design laid out anew from a template: the named template, or the design's own on a new
// canvas, its slots filled from the request, then the design's current slots, then the post's
// copy; or a whole new layout, or nothing (the current layout rendered again). Every change goes
// through the designs concept's one edit (changeDesign: locks, the version check,
// only_this_post, frozen published posts, the render). Callers: PATCH /v1/posts/{id}/design
// and MCP design_post.
import type { DesignCaller, DesignRef, DesignState } from '../designs/schema.ts';
import {
  changeDesign,
  checkedLayout,
  type DesignDeps,
  isVideoLayout,
  refuseOtherKind,
  wholeLayout,
} from '../designs/service.ts';
import { conflict, invalid } from '../kernel/errors.ts';
import { copySlots, currentSlots, templateFill, templateFor, templateLayout } from './fill.ts';
import { TEMPLATES } from './listing.ts';
import type { DesignEditInput } from './schema.ts';

/**
 * A design's whole new layout, or a template laid out anew (its slots filled from the post
 * copy), or nothing: the current layout rendered again.
 */
export async function editDesign(
  deps: DesignDeps,
  caller: DesignCaller,
  ref: DesignRef,
  input: DesignEditInput,
  loc: (string | number)[] = ['body'],
): Promise<DesignState> {
  const template =
    input.template === undefined
      ? undefined
      : templateFor(caller, input.template, [...loc, 'template']);
  const hasLayers =
    input.layout?.layers !== undefined ||
    (input.layout !== undefined && 'pages' in input.layout && input.layout.pages !== undefined);
  return changeDesign(deps, caller, ref, {
    layoutVersion: input.layout_version,
    onlyThisPost: input.only_this_post,
    change: async (db, design, post) => {
      if (input.layout) refuseOtherKind(design, input.layout, [...loc, 'layout']);
      if (isVideoLayout(design.layout)) {
        if (template)
          throw conflict(
            'video_design',
            'This is a video design: Canvas templates cannot lay it out; give a whole video layout, or start from use_video_template.',
          );
        if (!input.layout) return undefined;
        const layout = await wholeLayout(db, caller.accountId, design, input.layout, [
          ...loc,
          'layout',
        ]);
        return { layout, template: design.template };
      }
      // A layout with a canvas and no layers lays the design's own template out again on it
      // (as on creation), unless the design has none from today's catalogue.
      const relay =
        template ?? (input.layout && !hasLayers ? TEMPLATES.get(design.template) : undefined);
      if (input.slots !== undefined && (!relay || hasLayers))
        throw invalid(
          [...loc, 'slots'],
          'slots fill a template: give template (and no layout layers) with them',
        );
      if (!input.layout && !relay) return undefined;
      if (!relay || hasLayers) {
        // A whole layout given (with a template, it takes the template's name).
        const layout = await wholeLayout(db, caller.accountId, design, input.layout!, [
          ...loc,
          'layout',
        ]);
        return { layout, template: relay?.name ?? design.template };
      }
      // A re-lay keeps the design's content: the request's slots first, then what the
      // design's slots hold now, then the post's copy.
      const given = await templateLayout(
        db,
        caller.accountId,
        design.brand_id,
        relay,
        input.layout?.canvas.aspect ?? design.layout.canvas.aspect,
        templateFill(
          relay,
          input.slots,
          [...loc, 'slots'],
          currentSlots(design),
          ...(post ? [copySlots(relay, post.body, [...loc, 'template'])] : []),
        ),
        [...loc, 'slots'],
      );
      const layout = await checkedLayout(db, caller.accountId, given, [...loc, 'layout']);
      return { layout, template: relay.name };
    },
  });
}
