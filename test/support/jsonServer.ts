// A JSON-answering HTTP server on loopback that stands in for a platform's API in a test (a
// Mastodon instance, an AppView): the test's handler reads the request and answers with
// `reply`. A beforeAll that starts one returns its `close`, so it closes with the file.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Reply = (status: number, body: unknown, headers?: Record<string, string>) => void;

export async function startJsonServer(
  handle: (req: IncomingMessage, reply: Reply, url: URL) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const reply: Reply = (status, body, headers = {}) =>
      res
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(JSON.stringify(body));
    handle(req, reply, new URL(req.url ?? '/', 'http://loopback'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
