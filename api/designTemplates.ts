// GET /design-templates/{name}/thumbnail.png: a template's thumbnail, public (templates are no
// secret; an agent or a dashboard shows them without a credential). The PNGs are rendered
// from the templates ahead of time (bin/renderTemplateThumbnails.ts): the API never draws.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { TEMPLATES, THUMBNAILS_DIR } from '../core/designs/templates.ts';
import { notFound } from '../core/kernel/errors.ts';
import { ErrorBody } from './rest/schemas.ts';

export const designTemplateRoutes: FastifyPluginAsync = async (base) => {
  base.withTypeProvider<ZodTypeProvider>().get(
    '/design-templates/:name/thumbnail.png',
    {
      schema: {
        summary: "A design template's thumbnail (PNG, 320 px wide; no credential needed)",
        tags: ['designs'],
        params: z.object({ name: z.string().max(64) }),
        response: { 200: z.any().describe('PNG bytes.'), 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const template = TEMPLATES.get(req.params.name);
      if (!template) throw notFound('Template');
      // A template added without its thumbnail rendered yet is missing, not an error.
      const png = await readFile(path.join(THUMBNAILS_DIR, `${template.name}.png`)).catch(
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') throw notFound('Template thumbnail');
          throw err;
        },
      );
      return reply.type('image/png').header('cache-control', 'public, max-age=86400').send(png);
    },
  );
};
