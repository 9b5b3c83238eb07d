// The bare routes the throughput bench compares the service with: a Fastify process on the
// same database doing only the essential statement of each route, prepared, without logging.
// GET /me runs the service's key lookup statement; POST /posts inserts one draft row.
// Started by bench/throughput.ts as its own process (DATABASE_URL, BRAND_ID, ACCOUNT_ID); prints
// "listening on <port>".
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pg from 'pg';
import { useApiKey } from '../core/apikeys/db.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = Fastify();
const keyHash = (header: string | undefined) =>
  createHash('sha256')
    .update((header ?? '').slice('Bearer '.length))
    .digest();

app.get('/me', async (req) => {
  // The service's own key lookup statement (prepared once per connection, as it is there).
  const holder = await useApiKey(pool, keyHash(req.headers.authorization));
  return { email: holder?.email, plan: holder?.plan, scopes: holder?.scopes };
});

app.get('/healthz', async () => ({ ok: true }));

app.post('/posts', async (req, reply) => {
  const body = req.body as { platform: string; body: string };
  const { rows } = await pool.query({
    name: 'bare_post',
    text: `insert into posts (account_id, brand_id, platform, kind, body, status)
           values ($1, $2, $3, 'text', $4, 'draft') returning id::text, status`,
    values: [process.env.ACCOUNT_ID, process.env.BRAND_ID, body.platform, body.body],
  });
  return reply.code(201).send(rows[0]);
});

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(`listening on ${(app.server.address() as AddressInfo).port}`);
// A clean exit on a signal, so `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void app.close().then(() => process.exit(0)));
