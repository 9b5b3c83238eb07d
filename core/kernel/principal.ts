// Who is calling: every interface (REST, GraphQL, MCP, session routes) resolves its
// credential to one Principal, and access rules are checked against it in one place.
import type { Feature, Plan, Scope } from './plans.ts';

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
       * statement confirmed it still holds (core/auth/rememberedKeys.ts).
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

/** What an operation needs beyond a valid credential; declared once per operation. */
export type Requirement = { scope?: Scope; feature?: Feature };

/** The remembered key a caller was admitted on, while no statement has confirmed it. */
export const unconfirmedKeyOf = ({
  credential,
}: Pick<Principal, 'credential'>): KeyVersion | undefined =>
  credential.kind === 'api_key' ? credential.unconfirmed : undefined;
