// GET and PATCH /v1/brand-memory, POST /v1/brand-memory/import and /genome (SPEC.md "REST:
// brand memory"). Domain: core/brandMemory/ (service.ts, historyImport.ts, genome.ts), shared
// with MCP get_brand_memory, update_brand_memory and import_history.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  GenomeInput,
  ImportHistoryInput,
  MemoryPatchInput,
  MemoryPatchResult,
  MemoryRef,
  MemoryState,
  StartedGenome,
  StartedJob,
} from '../../core/brandMemory/schema.ts';
import {
  getBrandMemory,
  patchBrandMemory,
  startGenome,
  startHistoryImport,
} from '../../core/brandMemory/service.ts';
import type { Pool } from '../../core/db/pool.ts';
import { principalOf } from '../auth.ts';
import { bearerErrors, bearerSecurity, ErrorBody } from './schemas.ts';

export const brandMemoryRoutes: FastifyPluginAsync<{ pool: Pool }> = async (base, { pool }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const tags = ['brand memory'];

  app.get(
    '/brand-memory',
    {
      config: { requires: { scope: 'read' } },
      schema: {
        tags,
        security: bearerSecurity,
        summary: "A brand's memory: its document, version, confidence per section and gaps",
        querystring: MemoryRef,
        response: { 200: MemoryState, 404: ErrorBody, 422: ErrorBody, ...bearerErrors },
      },
    },
    async (req) => getBrandMemory(pool, principalOf(req), req.query.brand_id),
  );

  app.patch(
    '/brand-memory',
    {
      config: { requires: { scope: 'generate' } },
      schema: {
        tags,
        security: bearerSecurity,
        summary:
          "Apply up to 40 JSON Patch ops to a brand's memory under expected_version: failing ops are skipped and counted, the rest make one new version",
        body: MemoryPatchInput,
        response: {
          200: MemoryPatchResult,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
          ...bearerErrors,
        },
      },
    },
    async (req) => patchBrandMemory(pool, principalOf(req), req.body),
  );

  app.post(
    '/brand-memory/import',
    {
      config: { requires: { scope: 'generate' } },
      schema: {
        tags,
        security: bearerSecurity,
        summary:
          "Read the brand's recent posts on its connected accounts into its memory (examples and habits), as a job answered at once",
        body: ImportHistoryInput.nullish(),
        response: { 202: StartedJob, 404: ErrorBody, 422: ErrorBody, ...bearerErrors },
      },
    },
    async (req, reply) => {
      const job = await startHistoryImport(pool, principalOf(req), req.body ?? {});
      return reply.code(202).send({ job_id: job.job_id, status: job.status });
    },
  );

  app.post(
    '/brand-memory/genome',
    {
      config: { requires: { scope: 'generate' } },
      schema: {
        tags,
        security: bearerSecurity,
        summary:
          "Read the brand's colours, fonts and voice from its site into its memory, as a job paid in credits (given back if it fails)",
        body: GenomeInput.nullish(),
        response: {
          202: StartedGenome,
          402: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
          ...bearerErrors,
        },
      },
    },
    async (req, reply) =>
      reply
        .code(202)
        .send(await startGenome(pool, principalOf(req), req.body ?? GenomeInput.parse({}))),
  );
};
