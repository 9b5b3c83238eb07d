// The access rules of SPEC.md and CONTRACT.md, in the order they are checked: plan, request
// budget, scope, feature gate. Interfaces call these; handlers never repeat them.

import { featureRequired, missingScope, planRequired, tooManyRequests } from '../kernel/errors.ts';
import { API_PLAN, planAtLeast } from '../kernel/plans.ts';
import type { Principal, Requirement } from '../kernel/principal.ts';
import type { Budget } from './budget.ts';

export function assertApiPlan(p: Principal): void {
  if (!planAtLeast(p.plan, API_PLAN)) throw planRequired(API_PLAN);
}

/** Headers describing the budget (sent on every API response, required on a 429). */
export function budgetHeaders(b: Budget, now = Date.now()): Record<string, string> {
  const reset = Math.max(1, Math.ceil((b.resetAt.getTime() - now) / 1000));
  return {
    'RateLimit-Limit': String(b.limit),
    'RateLimit-Remaining': String(Math.max(0, b.limit - b.used)),
    'RateLimit-Reset': String(reset),
  };
}

export function assertWithinBudget(b: Budget): void {
  if (b.used <= b.limit) return;
  const headers = budgetHeaders(b);
  throw tooManyRequests(
    `Request budget of ${b.limit} a minute is spent; retry in ${headers['RateLimit-Reset']} s.`,
    { ...headers, 'Retry-After': headers['RateLimit-Reset']! },
  );
}

export function assertRequirement(p: Principal, r: Requirement | undefined): void {
  if (r?.scope && !p.scopes.includes(r.scope)) throw missingScope(r.scope);
  if (r?.feature && !p.features.includes(r.feature)) throw featureRequired(r.feature);
}
