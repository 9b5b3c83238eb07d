// POST /v1/generate (SPEC.md "REST"): drafts from a URL or a text for the selected brand,
// answered once they exist. Domain: core/generation/service.ts, shared with MCP repurpose.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { GenerateInput, GenerationResult } from '../../core/generation/schema.ts';
import { type GenerateDeps, generateDrafts } from '../../core/generation/service.ts';
import { principalOf } from '../auth.ts';
import { bearerErrors, bearerSecurity, ErrorBody } from './schemas.ts';

export const generateRoutes: FastifyPluginAsync<{ generation: GenerateDeps }> = async (
  base,
  { generation },
) => {
  base.withTypeProvider<ZodTypeProvider>().post(
    '/generate',
    {
      config: { requires: { scope: 'generate' } },
      schema: {
        tags: ['generation'],
        security: bearerSecurity,
        summary:
          "Draft posts from a URL's article or a text for the selected brand's platforms, in its memory's rules; answers when the drafts exist (504 with job_id past GENERATE_TIMEOUT_S)",
        body: GenerateInput,
        response: {
          200: GenerationResult,
          404: ErrorBody,
          422: ErrorBody,
          504: ErrorBody,
          ...bearerErrors,
        },
      },
    },
    async (req) => generateDrafts(generation, principalOf(req), req.body),
  );
};
