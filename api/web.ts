// The dashboard's pages (web/, built by Vite into web/dist by `npm ci`, or `npm run
// build:web`): its hashed assets under /assets/ and its index.html at each page's address,
// so a reload or a shared link opens that page. Without a build, / says how to make one.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

/** The dashboard's page addresses (web/src/routes.tsx has the same). */
export const DASHBOARD_PAGES = [
  '/',
  '/sign-in',
  '/sign-up',
  '/board',
  '/compose',
  '/calendar',
  '/settings/keys',
  '/settings/webhooks',
  '/settings/accounts',
  '/posts/:postId',
  '/analytics',
  '/settings/competitors',
  '/media',
  '/designs',
  '/designs/:designId',
  '/drawings',
  '/drawings/:drawingId',
  '/jobs',
  '/usage',
  '/settings/apps',
  '/oauth/consent/:uid',
] as const;

export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web/dist');

/** What the pages may load and where they may send: this origin only, no frames, no CDN. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-cache',
};

export const webRoutes: FastifyPluginAsync<{ dist?: string }> = async (app, opts) => {
  const dist = opts.dist ?? WEB_DIST;
  const indexFile = path.join(dist, 'index.html');
  // The assets folder is served when a build exists at start (a first build needs a restart).
  if (existsSync(indexFile))
    await app.register(fastifyStatic, {
      root: path.join(dist, 'assets'),
      prefix: '/assets/',
      // Names carry a content hash: a browser keeps them.
      immutable: true,
      maxAge: '365d',
      index: false,
      wildcard: true,
    });
  // index.html is read at each request (it is small): a rebuild is served at once.
  const page = async (_req: unknown, reply: FastifyReply) => {
    const index = await readFile(indexFile).catch(() => undefined);
    if (index) return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(index);
    return reply
      .code(503)
      .type('text/plain; charset=utf-8')
      .send(
        'The dashboard is not built here: run `npm run build:web` (npm ci does it), then reload.',
      );
  };
  for (const url of DASHBOARD_PAGES) app.get(url, { schema: { hide: true } }, page);
};
