// SQL for OAuth (sql/033_oauth.sql): oidc-provider's stored models (./adapter.ts is the only
// caller of the payload functions), the grants people allowed on the consent page, and the
// bearer lookup of an access token with its account, in one statement.

import type { Queryable } from '../db/pool.ts';
import type { Feature, Plan, Scope } from '../kernel/plans.ts';

export type StoredPayload = Record<string, unknown> & {
  grantId?: string;
  uid?: string;
  consumed?: number;
};

export async function upsertPayload(
  db: Queryable,
  model: string,
  id: string,
  payload: StoredPayload,
  expiresInS: number | undefined,
): Promise<void> {
  await db.query(
    `insert into oauth_payloads (model, id, payload, grant_id, uid, expires_at)
     values ($1, $2, $3, $4, $5, case when $6::int is null then null
                                      else now() + make_interval(secs => $6::int) end)
     on conflict (model, id) do update
       set payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
           expires_at = excluded.expires_at`,
    [
      model,
      id,
      JSON.stringify(payload),
      payload.grantId ?? null,
      payload.uid ?? null,
      expiresInS ?? null,
    ],
  );
}

/** A stored model that has not expired, with `consumed` when it was consumed. */
export async function findPayload(
  db: Queryable,
  model: string,
  by: { id: string } | { uid: string },
): Promise<StoredPayload | undefined> {
  const [column, value] = 'id' in by ? ['id', by.id] : ['uid', by.uid];
  const { rows } = await db.query<{ payload: StoredPayload; consumed: number | null }>(
    `select payload, extract(epoch from consumed_at)::int as consumed from oauth_payloads
      where model = $1 and ${column} = $2 and (expires_at is null or expires_at > now())`,
    [model, value],
  );
  const row = rows[0];
  if (!row) return undefined;
  return row.consumed === null ? row.payload : { ...row.payload, consumed: row.consumed };
}

/**
 * Marks a code or refresh token consumed, once: true for the one caller that did, false for
 * every other (already consumed, or gone), however many send it at the same moment. The
 * provider's own check reads the row before this, so two requests can both pass it; this
 * statement is the one that decides.
 */
export async function consumePayload(db: Queryable, model: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `update oauth_payloads set consumed_at = now()
      where model = $1 and id = $2 and consumed_at is null`,
    [model, id],
  );
  return rowCount === 1;
}

/** The grant a stored code or token belongs to, whether consumed or expired. */
export async function grantOfPayload(
  db: Queryable,
  model: string,
  id: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ grant_id: string | null }>(
    'select grant_id from oauth_payloads where model = $1 and id = $2',
    [model, id],
  );
  return rows[0]?.grant_id ?? undefined;
}

export async function destroyPayload(db: Queryable, model: string, id: string): Promise<void> {
  await db.query('delete from oauth_payloads where model = $1 and id = $2', [model, id]);
}

/** Every token, code and the grant itself of `grantId` (a revocation, a reused refresh token). */
export async function destroyGrant(db: Queryable, grantId: string): Promise<void> {
  await db.query('delete from oauth_payloads where grant_id = $1 or (model = $2 and id = $1)', [
    grantId,
    'Grant',
  ]);
  await db.query('delete from oauth_grants where grant_id = $1', [grantId]);
}

/**
 * Expired rows (the provider never deletes what simply ran out), clients registered more than
 * a day ago that nobody ever allowed (registration is open: unused ones do not pile up), and
 * tokens whose grant is gone.
 */
export async function deleteExpiredPayloads(db: Queryable): Promise<number> {
  const expired = await db.query('delete from oauth_payloads where expires_at <= now()');
  const unused = await db.query(
    `delete from oauth_payloads p
      where p.model = 'Client'
        and (p.payload->>'client_id_issued_at')::bigint < extract(epoch from now() - interval '1 day')
        and not exists (select 1 from oauth_grants g where g.client_id = p.id)`,
  );
  // A deleted client's registration token goes with it.
  const orphans = await db.query(
    `delete from oauth_payloads t
      where t.model = 'RegistrationAccessToken'
        and not exists (select 1 from oauth_payloads c
                         where c.model = 'Client' and c.id = t.payload->>'clientId')`,
  );
  // Tokens a revoked grant's last exchange saved after the revocation deleted the rest (a
  // reused code or refresh token: core/oauth/adapter.ts): they work nowhere, and go here.
  const revoked = await db.query(
    `delete from oauth_payloads t
      where t.model in ('AccessToken', 'RefreshToken', 'AuthorizationCode')
        and t.grant_id is not null
        and not exists (select 1 from oauth_payloads g where g.model = 'Grant' and g.id = t.grant_id)`,
  );
  return (
    (expired.rowCount ?? 0) +
    (unused.rowCount ?? 0) +
    (orphans.rowCount ?? 0) +
    (revoked.rowCount ?? 0)
  );
}

export async function insertGrant(
  db: Queryable,
  g: {
    grantId: string;
    accountId: string;
    clientId: string;
    clientName: string | null;
    brandId: string;
    scopes: string[];
  },
): Promise<void> {
  await db.query(
    `insert into oauth_grants (grant_id, account_id, client_id, client_name, brand_id, scopes)
     values ($1, $2, $3, $4, $5, $6)`,
    [g.grantId, g.accountId, g.clientId, g.clientName, g.brandId, g.scopes],
  );
}

export type GrantRow = {
  grant_id: string;
  client_id: string;
  client_name: string | null;
  brand_id: string | null;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
};

export async function grantsOf(db: Queryable, accountId: string): Promise<GrantRow[]> {
  const { rows } = await db.query<GrantRow>(
    `select grant_id, client_id, client_name, brand_id::text, scopes, created_at, last_used_at
       from oauth_grants where account_id = $1 order by created_at desc limit 100`,
    [accountId],
  );
  return rows;
}

export async function findGrant(db: Queryable, accountId: string, grantId: string) {
  const { rows } = await db.query<GrantRow>(
    `select grant_id, client_id, client_name, brand_id::text, scopes, created_at, last_used_at
       from oauth_grants where account_id = $1 and grant_id = $2`,
    [accountId, grantId],
  );
  return rows[0];
}

export type AccessTokenRow = {
  account_id: string;
  email: string;
  plan: Plan;
  features: Feature[];
  budget_per_minute: number | null;
  brand_id: string | null;
  selected_brand_id: string | null;
  client_id: string;
  grant_id: string;
  last_used_at: Date | null;
  scope: string;
  audience: string | null;
};

/**
 * An unexpired access token whose grant still stands, with its account as of now (a lowered
 * plan or a revoked grant shows on the next request). Read-only: the grant's last use is
 * stamped apart (stampGrantUse).
 */
export async function useAccessToken(
  db: Queryable,
  token: string,
): Promise<AccessTokenRow | undefined> {
  const { rows } = await db.query<AccessTokenRow>({
    name: 'use_oauth_access_token',
    text: `select a.id::text as account_id, a.email, a.plan, a.budget_per_minute,
                  coalesce((select array_agg(f.feature) from account_features f
                             where f.account_id = a.id), '{}') as features,
                  g.brand_id::text, a.selected_brand_id::text, g.client_id, g.grant_id,
                  g.last_used_at, coalesce(p.payload->>'scope', '') as scope,
                  p.payload->>'aud' as audience
             from oauth_payloads p
             join oauth_grants g on g.grant_id = p.grant_id
             join accounts a on a.id = g.account_id
            where p.model = 'AccessToken' and p.id = $1 and p.expires_at > now()`,
    values: [token],
  });
  return rows[0];
}

/** Stamps a grant's last use, unless it was stamped within the minute (by any process). */
export async function stampGrantUse(db: Queryable, grantId: string): Promise<void> {
  await db.query({
    name: 'stamp_oauth_grant_use',
    text: `update oauth_grants set last_used_at = now()
            where grant_id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
    values: [grantId],
  });
}

export type { Scope };
