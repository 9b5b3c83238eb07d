// Who is calling: every interface (REST, GraphQL, MCP, session routes) resolves its
// credential to one Principal, and access rules are checked against it in one place.
import { budgetLimitOf, type Feature, type Plan, type Scope } from './plans.ts';

/**
 * An API key as a process remembered it: its id and the row version (of the key and its
 * account) it was read at, which a statement compares to confirm the key still holds.
 */
export type KeyVersion = { key_id: string; row_version: string };

export type Credential =
  | {
      kind: 'api_key';
      id: string;
      /**
       * Set while the key is admitted on what this process remembered of it, before any
       * statement confirmed it still holds (core/posts/rememberedKeys.ts).
       */
      unconfirmed?: KeyVersion;
    }
  | { kind: 'session'; id: string }
  | { kind: 'oauth'; id: string; clientId: string };

export type Principal = {
  accountId: string;
  email: string;
  plan: Plan;
  scopes: Scope[];
  features: Feature[];
  /** The brand selected in the dashboard: the default wherever brand_id is omitted. */
  selectedBrandId: string | null;
  credential: Credential;
};

/** The account's one-minute request window after counting the current request. */
export type Budget = { limit: number; used: number; resetAt: Date };

/** What an operation needs beyond a valid credential; declared once per operation. */
export type Requirement = { scope?: Scope; feature?: Feature };

/** A credential's holder as the bearer lookups read it (an API key's or a token's account). */
export type CredentialHolder = {
  account_id: string;
  email: string;
  plan: Plan;
  features: Feature[];
  budget_per_minute: number | null;
};

/** An authenticated caller: its principal and its account's requests a minute. */
export type Authenticated = {
  principal: Principal;
  /** The account's requests a minute (plan value or operator override). */
  budgetPerMinute: number;
};

/** The one way a looked-up credential becomes a principal (keys and OAuth tokens alike). */
export const authenticated = (
  r: CredentialHolder,
  grant: { scopes: Scope[]; selectedBrandId: string | null; credential: Credential },
): Authenticated => ({
  principal: {
    accountId: r.account_id,
    email: r.email,
    plan: r.plan,
    features: r.features,
    ...grant,
  },
  budgetPerMinute: budgetLimitOf(r),
});
