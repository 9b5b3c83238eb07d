// PATCH /v1/posts/{post_id}/design (SPEC.md "Native layout rules" 5-6). Domain:
// core/templates/relayoutFromTemplate.ts (editDesign), shared with MCP design_post.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DesignState } from '../../core/designs/schema.ts';
import type { DesignDeps } from '../../core/designs/service.ts';
import { DesignEditInput } from '../../core/templates/schema.ts';
import { editDesign } from '../../core/templates/service.ts';
import { principalOf } from '../auth.ts';
import { bearerErrors, bearerSecurity, ErrorBody } from './schemas.ts';

const PostParams = z.object({ post_id: z.string().describe('Post id.') });

export const designRoutes: FastifyPluginAsync<{ designs: DesignDeps }> = async (
  base,
  { designs },
) => {
  const app = base.withTypeProvider<ZodTypeProvider>();

  app.patch(
    '/posts/:post_id/design',
    {
      config: { requires: { scope: 'publish' } },
      schema: {
        tags: ['posts'],
        security: bearerSecurity,
        summary:
          "Replace a post's design layout (or re-lay it from a template, or re-render it) and answer the rendered pages; a shared design changes for every unpublished linked post",
        params: PostParams,
        body: DesignEditInput.nullish(),
        response: {
          200: DesignState,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
          ...bearerErrors,
        },
      },
    },
    async (req) =>
      editDesign(
        designs,
        principalOf(req),
        { post_id: req.params.post_id },
        req.body ?? DesignEditInput.parse({}),
      ),
  );
};
