// The bare routes both side-by-side benches compare the service with (bench/bareServer.ts in
// a process of its own, bench/me.ts and bench/posts.ts in the bench's process): Fastify
// routes that do the work the service must do for a request in ONE prepared statement each,
// and nothing else (no validation, no budget, no logging, no receipt headers). So the ratio at
// one connection is the service's overhead, not the schema's cost:
// - GET /me: the service's own key lookup statement (key, account, feature grants), as
//   /v1/me runs it when it shares nothing.
// - POST /posts: what a draft costs in Postgres however it is made: the key looked up by its
//   hash (with its scope), the account's selected brand checked to be the account's, the post
//   inserted and its `create` audit row written, in one statement. The service makes a
//   draft in one statement too (insertDraftAsKey in core/posts/db.ts), which confirms a key
//   it looked up before by row version instead of by hash.
// What the bare routes cannot do is share a statement between requests (core/db/batch.ts):
// each request runs its own, so at 32 connections they are a floor of one statement a
// request, not the best a lean server could do.
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type pg from 'pg';
import { useApiKey } from '../core/apikeys/db.ts';

const keyHash = (header: string | undefined) =>
  createHash('sha256')
    .update((header ?? '').slice('Bearer '.length))
    .digest();

/** The bare draft: key, brand, post and audit row in one statement (see above). */
export const BARE_DRAFT = `
  with k as (
    select k.id as key_id, k.account_id, a.selected_brand_id
    from api_keys k join accounts a on a.id = k.account_id
    where k.key_hash = $1 and 'publish' = any(k.scopes)
  ), b as (
    select b.id, b.uuid, k.key_id, k.account_id
    from k join brands b on b.id = k.selected_brand_id and b.account_id = k.account_id
  ), p as (
    insert into posts (account_id, brand_id, platform, kind, body)
    select account_id, id, $2, 'text', $3 from b
    returning id, uuid, created_at
  ), a as (
    insert into audit_log (account_id, post_id, action, to_status, actor_kind, actor_id)
    select b.account_id, p.id, 'create', 'draft', 'api_key', b.key_id::text from p, b
  )
  select p.id::text, p.uuid, p.created_at from p`;

/** Adds GET /me and POST /posts (the one-statement bare routes) to `app`, on `pool`. */
export function bareRoutes(app: FastifyInstance, pool: pg.Pool) {
  app.get('/me', async (req, reply) => {
    const holder = await useApiKey(pool, keyHash(req.headers.authorization));
    if (!holder) return reply.code(401).send({ error: 'unauthorized' });
    return { email: holder.email, plan: holder.plan, scopes: holder.scopes };
  });

  app.post('/posts', async (req, reply) => {
    const body = req.body as { platform: string; body: string };
    const { rows } = await pool.query({
      name: 'bare_draft',
      text: BARE_DRAFT,
      values: [keyHash(req.headers.authorization), body.platform, body.body],
    });
    if (!rows[0]) return reply.code(401).send({ error: 'unauthorized' });
    return reply.code(201).send({ ...rows[0], status: 'draft' });
  });
}

/** The bare routes on a Fastify of their own in this process, on `pool`: its base URL. */
export async function listenBare(
  pool: pg.Pool,
): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify();
  bareRoutes(app, pool);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: () => app.close(),
  };
}
