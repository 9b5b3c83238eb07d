// What a young-generation GC promotes while two structures kept across requests churn: the
// in-flight registry (api/inFlight.ts) as requests come and go, and the remembered keys
// (core/auth/rememberedKeys.ts) as one key is looked up again and again. A structure that keeps
// finished entries reachable (a Map whose entries are deleted and set) promotes them all, and
// each scavenge then costs more CPU for as long as the process runs. The tests assert what the
// structures hold; these are the figures.
// Targets: under 1 MB promoted for 5,000 requests, under 500 kB for 5,000 lookups.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createInFlight } from '../api/inFlight.ts';
import { apiKeyDigest } from '../core/apikeys/keys.ts';
import type { RememberedKey } from '../core/apikeys/schema.ts';
import { createKnownKeys } from '../core/auth/rememberedKeys.ts';
import { promotedBy } from './gc.ts';

/** Bytes promoted while 5,000 requests of about 1 kB churn, 32 of them open at a time. */
function inFlightPromotion(count: number) {
  const inFlight = createInFlight();
  const open: FastifyRequest[] = [];
  const churn = (n: number) => {
    for (let i = 0; i < n; i++) {
      const req = { n: i, raw: { socket: { destroyed: false } }, body: new Array(128).fill(i) };
      inFlight.add({ request: req } as unknown as FastifyReply);
      open.push(req as unknown as FastifyRequest);
      if (open.length > 32) inFlight.remove(open.shift()!);
    }
  };
  churn(1000); // the registry itself reaches the old generation with the full GC below
  return promotedBy(() => churn(count));
}

/** Bytes promoted while one key is remembered again 5,000 times, each holder about 4 kB. */
function knownKeysPromotion(count: number) {
  const keys = createKnownKeys();
  const digest = apiKeyDigest(`sps_${'0'.repeat(32)}`);
  const lookUp = (n: number) => {
    for (let i = 0; i < n; i++)
      keys.remember(digest, {
        key_id: String(i),
        last_used_ms: null,
        scopes: ['read', 'publish'],
        account_id: '1',
        email: 'someone@example.com',
        plan: 'business',
        selected_brand_id: '1',
        budget_per_minute: null,
        features: new Array(512).fill(i),
        row_version: '1/1',
      } as RememberedKey);
  };
  lookUp(100);
  return promotedBy(() => lookUp(count));
}

export function benchPromotion(count = 5000) {
  const inFlight = inFlightPromotion(count);
  const knownKeys = knownKeysPromotion(count);
  const kB = (bytes: number) => `${Math.round(bytes / 1024)} kB`;
  console.log('Promoted to the old generation by young-generation GCs');
  console.log(`  in-flight registry, ${count} requests   ${kB(inFlight)} (target: < 1 MB)`);
  console.log(`  remembered keys, ${count} lookups      ${kB(knownKeys)} (target: < 500 kB)`);
  return { inFlight, knownKeys };
}
