// The service as an operator runs it: `bin/start.ts all` over a database, JSON logs with
// request ids and no secrets, and a clean exit on SIGTERM.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createAccount } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { MIGRATION_LOCK } from '../core/db/migrate.ts';
import { freshDatabase } from './support/db.ts';
import { exited, spawnStart, startProcess } from './support/processes.ts';
import { waitFor } from './support/wait.ts';

describe('npm start', () => {
  it('serves, logs JSON with request ids but never the key, and stops cleanly on SIGTERM', async () => {
    const db = await freshDatabase();
    try {
      const { accountId } = await createAccount(db.pool, {
        email: 'proc@example.com',
        password: 'a fine password',
        plan: 'plus',
      });
      const { key } = await createApiKey(db.pool, accountId, { scopes: ['read'] });
      const proc = await startProcess('all', {
        DATABASE_URL: db.url,
        LOG_LEVEL: 'info',
        PUBLIC_BASE_URL: 'http://localhost:3999',
      });
      const res = await fetch(`${proc.baseUrl}/v1/me`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      const requestId = res.headers.get('x-request-id')!;

      proc.child.kill('SIGTERM');
      expect(await exited(proc.child)).toBe(0);

      const out = proc.output();
      expect(out).toContain(`"reqId":"${requestId}"`);
      expect(out).not.toContain(key);
      expect(out).toMatch(/"msg":"stopped"/);
      // Where the dashboard is (signing in from another origin, such as 127.0.0.1, is refused)
      // and which database the process uses.
      const lines = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toContainEqual(
        expect.objectContaining({
          dashboard: 'http://localhost:3999/',
          msg:
            'dashboard at http://localhost:3999/ (PUBLIC_BASE_URL: open it at this address, or ' +
            'sign-in is refused with origin_mismatch) — sign in with an account from npm run ' +
            'admin -- account create, or sign up there while SIGNUP allows',
        }),
      );
      const url = new URL(db.url);
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: `database: DATABASE_URL (${url.host}${url.pathname})` }),
      );
      for (const line of out.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    } finally {
      await db.drop();
    }
  });

  it('says which setting to change when it cannot listen, stopping what it started', async () => {
    const db = await freshDatabase();
    try {
      // 192.0.2.1 (TEST-NET-1) is no address of this machine: binding fails, nothing is sent.
      const failed = startProcess('all', { DATABASE_URL: db.url, HOST: '192.0.2.1' });
      const err = await failed.then(
        () => new Error('it listened'),
        (e: Error) => e,
      );
      expect(err.message).toMatch(/^exited with 1:/);
      expect(err.message).toContain(
        'Cannot listen on 192.0.2.1:0: HOST "192.0.2.1" is not an address of this machine',
      );
      expect(err.message).not.toMatch(/\n\s+at /);
    } finally {
      await db.drop();
    }
  });

  it('drains a SIGTERM that arrives during start-up: stops what started, exits 0', async () => {
    const db = await freshDatabase();
    // Holding the migration lock parks the process inside its start-up (opening the
    // database), so the signal lands there on any machine, however fast or slow.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      const proc = spawnStart('worker', { DATABASE_URL: db.url, LOG_LEVEL: 'info' }, [
        '--pool',
        'render',
      ]);
      const code = exited(proc.child);
      await waitFor(
        async () =>
          (
            await holder.query(
              `select 1 from pg_locks where locktype = 'advisory' and objid = $1 and not granted`,
              [MIGRATION_LOCK],
            )
          ).rowCount,
        { what: 'the process to wait for the migration lock', detail: proc.output },
      );
      proc.child.kill('SIGTERM');
      await holder.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      expect(await code).toBe(0);
      const out = proc.output();
      expect(out).toMatch(/"msg":"shutting down"/);
      expect(out).toMatch(/"msg":"stopped"/);
      // Start-up stopped at the step under way: the worker never started.
      expect(out).not.toMatch(/"msg":"worker started"/);
    } finally {
      await holder.end();
      await db.drop();
    }
  });
});
