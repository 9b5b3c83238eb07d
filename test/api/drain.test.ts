// Shutdown drains: a request in flight when the server closes still gets its answer.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startServer } from '../support/server.ts';

describe('closing the API', () => {
  it('finishes in-flight requests and refuses new ones', async () => {
    const reached = Promise.withResolvers<void>();
    const server = await startServer({
      extend: async (app) => {
        app.get('/slow', { schema: { hide: true } }, async () => {
          reached.resolve();
          await new Promise((r) => setTimeout(r, 300));
          return { done: true };
        });
      },
    });
    // A keep-alive client: the answer in flight tells it to hang up, so closing need not
    // wait for the client to drop the connection.
    const agent = new http.Agent({ keepAlive: true });
    const inFlight = new Promise<[number | undefined, string | undefined, unknown]>((resolve) => {
      http.get(`${server.baseUrl}/slow`, { agent }, (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve([res.statusCode, res.headers.connection, JSON.parse(body)]));
      });
    });
    await reached.promise;
    const closing = server.app.close();
    expect(await inFlight).toEqual([200, 'close', { done: true }]);
    await closing;
    await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
    agent.destroy();
    await server.db.drop();
  });

  it('forgets a request whose client hung up after sending its whole body', async () => {
    const reached = Promise.withResolvers<void>();
    const handled = Promise.withResolvers<void>();
    const server = await startServer({
      extend: async (app) => {
        app.post('/slow', { schema: { hide: true } }, async () => {
          reached.resolve();
          await new Promise((r) => setTimeout(r, 100));
          setImmediate(handled.resolve);
          return { done: true };
        });
      },
    });
    const body = JSON.stringify({ a: 1 });
    const req = http.request(`${server.baseUrl}/slow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', () => {}); // the hang-up below
    req.end(body);
    await reached.promise;
    expect(server.app.openWork().requests).toEqual(['POST /slow']);
    req.destroy();
    await handled.promise;
    await new Promise((r) => setTimeout(r, 50));
    expect(server.app.openWork().requests).toEqual([]);
    await server.app.close();
    await server.db.drop();
  });
});
