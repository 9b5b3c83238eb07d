// What other concepts see of an API key's holder: the bearer layer's principal, and the key
// a process remembers for the draft fast path (core/auth/rememberedKeys.ts).
import type { Feature, Plan, Scope } from '../kernel/plans.ts';
import type { KeyVersion } from '../kernel/principal.ts';

/** A key and its account, as the lookup behind every API request reads them. */
export type KeyHolder = {
  key_id: string;
  /** When the key was last stamped, in ms since the epoch (no Date parsed per request). */
  last_used_ms: number | null;
  scopes: Scope[];
  account_id: string;
  email: string;
  plan: Plan;
  selected_brand_id: string | null;
  budget_per_minute: number | null;
  features: Feature[];
};

/** A key's holder as the lookup that remembers it reads it (core/auth/rememberedKeys.ts). */
export type RememberedKey = KeyHolder &
  KeyVersion & {
    /**
     * The key's and its account's row versions as read (each row's xmin): any change to either
     * row since (the key deleted or stamped, a plan, budget or brand change) makes another.
     */
    row_version: string;
  };

/** Thrown where a statement found the key no longer as remembered (or could not check it). */
export class KeyChanged extends Error {
  constructor() {
    super('the API key changed since it was remembered; look it up afresh');
  }
}
