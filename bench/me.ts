// GET /v1/me (auth, plan, shared request budget) beside a bare Fastify route in the same
// process that does only the key-hash lookup. Issue: /v1/me at >= 0.5 of the bare route.
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { hashApiKey } from '../core/apikeys/keys.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { type BenchService, fmt, load } from './support.ts';

export async function benchMe(svc: BenchService, seconds: number) {
  const { accountId } = await createAccount(svc.pool, {
    email: `bench-me-${Date.now()}@example.com`,
    password: 'bench password',
    plan: 'business',
  });
  await setBudget(svc.pool, accountId, 100_000_000); // measure the path, not the 429s
  const { key } = await createApiKey(svc.pool, accountId, { scopes: ['read'] });

  const bare = Fastify();
  bare.get('/lookup', async (req) => {
    const token = (req.headers.authorization ?? '').slice('Bearer '.length);
    const { rows } = await svc.pool.query(
      'select id, account_id, scopes from api_keys where key_hash = $1',
      [hashApiKey(token)],
    );
    return { found: rows.length === 1 };
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const barePort = (bare.server.address() as AddressInfo).port;
  const headers = { authorization: `Bearer ${key}` };

  await load(`${svc.baseUrl}/v1/me`, { seconds: 1, headers }); // warm-up
  await load(`http://127.0.0.1:${barePort}/lookup`, { seconds: 1, headers });
  const lookup = await load(`http://127.0.0.1:${barePort}/lookup`, { seconds, headers });
  const me = await load(`${svc.baseUrl}/v1/me`, { seconds, headers });
  await bare.close();

  console.log('GET /v1/me vs bare key-hash lookup');
  console.log(`  bare lookup route  ${fmt(lookup)}`);
  console.log(`  GET /v1/me         ${fmt(me)}`);
  console.log(`  ratio              ${(me.rps / lookup.rps).toFixed(2)} (target >= 0.50)`);
  return { lookup, me, ratio: me.rps / lookup.rps };
}
