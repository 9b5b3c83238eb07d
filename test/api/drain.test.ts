// Shutdown drains: a request in flight when the server closes still gets its answer.
import { describe, expect, it } from 'vitest';
import { startServer } from '../support/server.ts';

describe('closing the API', () => {
  it('finishes in-flight requests and refuses new ones', async () => {
    let entered!: () => void;
    const reached = new Promise<void>((r) => {
      entered = r;
    });
    const server = await startServer({
      extend: async (app) => {
        app.get('/slow', { schema: { hide: true } }, async () => {
          entered();
          await new Promise((r) => setTimeout(r, 300));
          return { done: true };
        });
      },
    });
    const inFlight = fetch(`${server.baseUrl}/slow`).then(async (r) => [r.status, await r.json()]);
    await reached;
    const closing = server.app.close();
    expect(await inFlight).toEqual([200, { done: true }]);
    await closing;
    await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
    await server.db.drop();
  });
});
