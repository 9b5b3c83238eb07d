// A webhook receiver on loopback for delivery tests: it records every request (raw body
// bytes, headers, arrival time) and answers per path: /ok 204, /status/<code>, /hang (never
// answers), /redirect (302 to /ok), /flaky (500 once, then 204).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Arrival = { path: string; at: number; raw: Buffer; headers: IncomingHttpHeaders };

export type Receiver = {
  url: (path: string) => string;
  arrivals: Arrival[];
  on: (path: string) => Arrival[];
  close: () => Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const flaky = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      arrivals.push({ path, at: Date.now(), raw: Buffer.concat(chunks), headers: req.headers });
      const status = /^\/status\/(\d{3})/.exec(path);
      if (path.startsWith('/hang')) return; // never answers: the sender must time out
      if (path.startsWith('/redirect')) {
        res.writeHead(302, { location: '/ok-redirected' }).end();
      } else if (path.startsWith('/flaky') && !flaky.has(path)) {
        flaky.add(path);
        res.writeHead(500).end('try again');
      } else if (status) {
        res.writeHead(Number(status[1])).end();
      } else {
        res.writeHead(204).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    arrivals,
    on: (path) => arrivals.filter((a) => a.path === path),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
