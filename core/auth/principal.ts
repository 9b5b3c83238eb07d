// Who is calling: every interface (REST, GraphQL, MCP, session routes) resolves its
// credential to one Principal, and access rules are checked against it in one place.
import type { Feature, Plan, Scope } from '../accounts/plans.ts';

export type Credential =
  | { kind: 'api_key'; id: string }
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
