// SQL for connect flows: the only code that reads or writes connect_flows.
import type { Queryable } from '../db/pool.ts';
import type { OAuthPlatform } from '../platformApps.ts';

export type ConnectFlowRow = {
  id: string;
  account_id: string;
  brand_id: string;
  platform: OAuthPlatform;
  code_verifier: Buffer | null;
};

export async function insertConnectFlow(
  db: Queryable,
  f: {
    stateHash: Buffer;
    sessionId: string;
    accountId: string;
    brandId: string;
    platform: OAuthPlatform;
    codeVerifier: Buffer | null;
    ttlSeconds: number;
  },
): Promise<void> {
  await db.query(
    `insert into connect_flows
       (state_hash, session_id, account_id, brand_id, platform, code_verifier, expires_at)
     values ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`,
    [f.stateHash, f.sessionId, f.accountId, f.brandId, f.platform, f.codeVerifier, f.ttlSeconds],
  );
}

/** The session's flows that can no longer finish: a session keeps only live ones. */
export async function deleteSpentFlows(db: Queryable, sessionId: string): Promise<void> {
  await db.query(
    `delete from connect_flows
     where session_id = $1 and (consumed_at is not null or expires_at <= now())`,
    [sessionId],
  );
}

/**
 * Consumes the session's live flow with this state on this platform, in one conditional update:
 * of two callbacks with one state, one gets the row and the other nothing.
 */
export async function consumeConnectFlow(
  db: Queryable,
  f: { stateHash: Buffer; sessionId: string; platform: OAuthPlatform },
): Promise<ConnectFlowRow | undefined> {
  const { rows } = await db.query<ConnectFlowRow>(
    `update connect_flows set consumed_at = now()
     where state_hash = $1 and session_id = $2 and platform = $3
       and consumed_at is null and expires_at > now()
     returning id::text, account_id::text, brand_id::text, platform, code_verifier`,
    [f.stateHash, f.sessionId, f.platform],
  );
  return rows[0];
}

/** Whether an unusable state is the session's own unconsumed flow that ran out of time. */
export async function flowExpired(
  db: Queryable,
  f: { stateHash: Buffer; sessionId: string },
): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from connect_flows
     where state_hash = $1 and session_id = $2 and consumed_at is null and expires_at <= now()`,
    [f.stateHash, f.sessionId],
  );
  return rows.length > 0;
}
