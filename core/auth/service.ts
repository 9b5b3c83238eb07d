// The auth concept's front door: bearer-token authentication, the access rules the surfaces
// check before an operation, and the per-account request budget.

export { assertApiPlan, assertRequirement, assertWithinBudget, budgetHeaders } from './access.ts';
export type { Authenticated } from './bearer.ts';
export {
  authenticateBearerToken,
  keyHolderAuthenticated,
  keyStampIsDue,
  takeKeyStamp,
} from './bearer.ts';
export type { BudgetCounter } from './budget.ts';
export { createBudgetCounter } from './budget.ts';
