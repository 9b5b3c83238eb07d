// The bare routes of the side-by-side bench (bench/bareRoutes.ts) as a process of their own on
// the bench's database: Fastify without logging. Started by bench/throughput.ts
// (DATABASE_URL, PORT); prints "listening on <port>".
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pg from 'pg';
import { bareRoutes } from './bareRoutes.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = Fastify();
bareRoutes(app, pool);
app.get('/healthz', async () => ({ ok: true }));

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(`listening on ${(app.server.address() as AddressInfo).port}`);
// A clean exit on a signal, so `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void app.close().then(() => process.exit(0)));
