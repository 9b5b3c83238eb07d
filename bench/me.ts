// GET /v1/me (auth, plan, shared request budget) beside the one-statement bare /me
// (bench/bareRoutes.ts: the service's own key lookup statement) in the same process, at one
// connection (per-request overhead) and 32 (throughput), against bench/sideBySide.ts's targets.
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { listenBare } from './bareRoutes.ts';
import { type BenchService, sideBySideInProcess } from './support.ts';

export async function benchMe(svc: BenchService, seconds: number, runs = 3) {
  const { accountId } = await createAccount(svc.pool, {
    email: `bench-me-${Date.now()}@example.com`,
    password: 'bench password',
    plan: 'business',
  });
  await setBudget(svc.pool, accountId, 100_000_000); // measure the path, not the 429s
  const { key } = await createApiKey(svc.pool, accountId, { scopes: ['read'] });
  const bare = await listenBare(svc.pool);
  try {
    return await sideBySideInProcess(
      'GET /v1/me',
      { bare: `${bare.url}/me`, service: `${svc.baseUrl}/v1/me` },
      { headers: { authorization: `Bearer ${key}` } },
      seconds,
      runs,
    );
  } finally {
    await bare.close();
  }
}
