// Plans, scopes and feature gates of CONTRACT.md, as data the rest of the code checks against.
import { z } from 'zod';

export const PLANS = ['free', 'plus', 'pro', 'business'] as const;
export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;

export const SCOPES = ['read', 'publish', 'media', 'generate', 'engage'] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

export const FEATURES = [
  'engagement_inbox',
  'agent_tasks',
  'video_templates',
  'parked_video',
] as const;
export const Feature = z.enum(FEATURES);
export type Feature = z.infer<typeof Feature>;

/** True when `plan` is `minimum` or a higher plan. */
export const planAtLeast = (plan: Plan, minimum: Plan): boolean =>
  PLANS.indexOf(plan) >= PLANS.indexOf(minimum);

/** The plan API, GraphQL and MCP access needs (SPEC.md, Authentication 3). */
export const API_PLAN: Plan = 'plus';

/**
 * Requests a minute per account, shared by REST and GraphQL and counted for MCP and the
 * dashboard's session routes. `free` has no API (the plan check refuses first): its budget is
 * the dashboard's.
 */
export const REQUEST_BUDGET_PER_MINUTE: Record<Plan, number> = {
  free: 120,
  plus: 600,
  pro: 1200,
  business: 3000,
};

/** An account's requests a minute: the operator's override, else its plan's. */
export const budgetLimitOf = (a: { plan: Plan; budget_per_minute: number | null }) =>
  a.budget_per_minute ?? REQUEST_BUDGET_PER_MINUTE[a.plan];

/** Media library storage per account. */
export const STORAGE_QUOTA_BYTES: Record<Plan, number> = {
  free: 500 * 1024 ** 2,
  plus: 10 * 1024 ** 3,
  pro: 50 * 1024 ** 3,
  business: 200 * 1024 ** 3,
};

/** Designs an account keeps (native and standalone, video included); null: no limit. */
export const DESIGN_LIMIT: Record<Plan, number | null> = {
  free: 10,
  plus: 200,
  pro: 2000,
  business: null,
};

/** The lowest plan that lets an account keeping `kept` designs make one more. */
export const planAllowingDesigns = (kept: number): Plan =>
  PLANS.find((plan) => {
    const limit = DESIGN_LIMIT[plan];
    return limit === null || kept < limit;
  }) ?? 'business';
