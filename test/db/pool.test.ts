// The pool's lost connections (core/db/pool.ts): a connection Postgres ends (a restart, an
// administrator's pg_terminate_backend, a proxy's timeout) is logged, the process stays up and
// the pool goes on with new connections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../core/db/pool.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { exited, startProcess } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.drop());

const terminate = (pid: number) => db.pool.query('select pg_terminate_backend($1)', [pid]);

describe('a lost database connection', () => {
  it('is logged, idle or in use, and the pool answers again with a new one', async () => {
    const logged: { err?: Error; msg: string }[] = [];
    const pool = createPool(db.url, 2, {
      warn: (obj: { err?: Error }, msg) => logged.push({ err: obj.err, msg }),
    });
    try {
      const pidOf = async (q: { query: typeof pool.query }) =>
        (await q.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;

      const idle = await pidOf(pool); // returned to the pool: idle now
      await terminate(idle);
      const first = await waitFor(async () => logged[0], { what: 'the idle loss logged' });
      expect(first.msg).toMatch(/idle database connection was lost/);
      expect(first.err?.message).toMatch(/terminat/i);

      const client = await pool.connect();
      const held = await pidOf(client);
      expect(held).not.toBe(idle);
      await terminate(held);
      const second = await waitFor(async () => logged[1], { what: 'the in-use loss logged' });
      expect(second.msg).toMatch(/connection in use was lost/);
      client.release(second.err);

      // Once each: not again for the socket ending after the FATAL, nor by the pool's own event.
      expect(logged.map((l) => l.err?.message)).toHaveLength(2);
      expect((await pool.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('keeps a running service up: the loss is in its log and it answers on', async () => {
    // The service's own connections carry a name, so the test ends those and no other.
    const url = new URL(db.url);
    url.searchParams.set('application_name', 'sps-pool-test');
    const proc = await startProcess('api', { DATABASE_URL: url.toString(), LOG_LEVEL: 'info' });
    try {
      expect((await fetch(`${proc.baseUrl}/readyz`)).status).toBe(200);
      const { rows } = await db.pool.query<{ pid: number }>(
        `select pid from pg_stat_activity
         where application_name = 'sps-pool-test' and state = 'idle'`,
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const { pid } of rows) await terminate(pid);
      await waitFor(async () => /database connection (in use )?was lost/.test(proc.output()), {
        what: 'the loss in the service log',
        detail: proc.output,
      });
      expect(proc.child.exitCode).toBeNull();
      expect((await fetch(`${proc.baseUrl}/readyz`)).status).toBe(200);
      const lines = proc.output().trim().split('\n');
      const loss = lines.map((l) => JSON.parse(l)).find((l) => /was lost/.test(l.msg));
      expect(loss).toMatchObject({
        level: 40,
        err: { message: expect.stringMatching(/terminat/i) },
      });
    } finally {
      proc.child.kill('SIGTERM');
      expect(await exited(proc.child)).toBe(0);
    }
  });
});
