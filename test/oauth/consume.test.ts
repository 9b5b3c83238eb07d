// A code or refresh token used twice at the same moment, decided where it is decided: two
// consumes of one payload by the storage adapter (core/oauth/adapter.ts), both after reading
// it unconsumed (as oidc-provider does before consuming), made to reach Postgres together:
// a transaction holds the payload's row until both updates wait on it, then lets them go.
// Exactly one wins; the other gets invalid_grant and the grant is revoked. The HTTP tests
// (flow.test.ts, 20 concurrent uses) show the same end to end, but pass too whenever the
// requests happen to arrive one after another.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAdapter } from '../../core/oauth/adapter.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { makeAccount } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.drop());

/** A grant with an access token and `model`'s payload `id` (a code or refresh token). */
async function grantWith(model: string, id: string, grantId: string) {
  const account = await makeAccount(db.pool);
  await db.pool.query(
    `insert into oauth_grants (grant_id, account_id, client_id, scopes)
     values ($1, $2, 'client-1', '{read}')`,
    [grantId, account.accountId],
  );
  const Adapter = postgresAdapter(db.pool);
  await new Adapter('Grant').upsert(grantId, { accountId: account.accountId }, 3600);
  await new Adapter('AccessToken').upsert(`at-${grantId}`, { grantId }, 3600);
  await new Adapter(model).upsert(id, { grantId }, 3600);
  return Adapter;
}

/** Runs `both` while a transaction holds the payload's row, until two updates wait on it. */
async function together<T>(model: string, id: string, both: () => Promise<T>): Promise<T> {
  const blocker = new pg.Client({ connectionString: db.url });
  await blocker.connect();
  try {
    await blocker.query('begin');
    await blocker.query('select 1 from oauth_payloads where model = $1 and id = $2 for update', [
      model,
      id,
    ]);
    const result = both();
    await waitFor(
      async () => {
        // Asked outside the blocker's transaction, which would see one snapshot of it.
        const { rows } = await db.pool.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'
              and query like 'update oauth_payloads%'`,
        );
        return rows[0]!.n === 2;
      },
      { what: 'both updates waiting on the row' },
    );
    await blocker.query('commit');
    return await result;
  } finally {
    await blocker.end();
  }
}

describe('two consumes of one payload reaching the database together', () => {
  for (const model of ['AuthorizationCode', 'RefreshToken'])
    it(`${model}: exactly one wins; the other is invalid_grant and the grant is revoked`, async () => {
      const id = `${model}-once`;
      const grantId = `grant-${model}`;
      const Adapter = await grantWith(model, id, grantId);
      const [first, second] = [new Adapter(model), new Adapter(model)];
      // Both read it unconsumed first, as two requests do before either consumes it.
      expect((await first.find(id))?.consumed).toBeUndefined();
      expect((await second.find(id))?.consumed).toBeUndefined();

      const outcomes = await together(model, id, () =>
        Promise.allSettled([first.consume(id), second.consume(id)]),
      );
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = outcomes.find((o) => o.status === 'rejected')!;
      expect((refused as PromiseRejectedResult).reason).toMatchObject({ error: 'invalid_grant' });

      // The grant, its access token and the payload are gone, and so is the consent record.
      const left = await db.pool.query(
        'select model, id from oauth_payloads where grant_id = $1 or id = $1',
        [grantId],
      );
      expect(left.rows).toEqual([]);
      const grants = await db.pool.query('select 1 from oauth_grants where grant_id = $1', [
        grantId,
      ]);
      expect(grants.rows).toEqual([]);
    });
});
