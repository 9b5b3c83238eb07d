// The auth concept's front door: bearer-token authentication, the access rules the surfaces
// check before an operation, and the per-account request budget.

export { assertApiPlan, assertRequirement, assertWithinBudget, budgetHeaders } from './access.ts';
export type { Authenticated, CredentialHolder } from './bearer.ts';
export {
  authenticateBearerToken,
  keyHolderAuthenticated,
  keyStampIsDue,
  takeKeyStamp,
} from './bearer.ts';
export type { Budget, BudgetCounter } from './budget.ts';
export { createBudgetCounter } from './budget.ts';
export type { KnownKeys } from './rememberedKeys.ts';
export {
  authenticateRemembering,
  createKnownKeys,
  recallKey,
} from './rememberedKeys.ts';
