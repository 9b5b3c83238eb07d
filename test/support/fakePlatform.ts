// A stand-in social platform on loopback, for publication tests: it stores statuses and,
// like Mastodon, answers a repeated Idempotency-Key with the status it already created.
// `platformConnector` is the matching Connector, as a real connector would be written.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Connector, PublicationError } from '../../core/connectors/connector.ts';

export type Status = { id: string; text: string; url: string };

export type FakePlatform = {
  url: string;
  statuses: Status[];
  /** Idempotency keys of every request received, repeats included. */
  requests: string[];
  /** Makes the next requests answer this HTTP status instead of creating a status. */
  failNext: (status: number, message: string, times?: number) => void;
  close: () => Promise<void>;
};

export async function startFakePlatform(): Promise<FakePlatform> {
  const statuses: Status[] = [];
  const byKey = new Map<string, Status>();
  const requests: string[] = [];
  let failures: { status: number; message: string }[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const key = String(req.headers['idempotency-key'] ?? '');
      requests.push(key);
      const failure = failures.shift();
      res.setHeader('content-type', 'application/json');
      if (failure) {
        res.statusCode = failure.status;
        res.end(JSON.stringify({ error: failure.message }));
        return;
      }
      let status = byKey.get(key);
      if (!status) {
        const id = String(statuses.length + 1);
        status = { id, text: JSON.parse(raw).status, url: `https://social.example/@brand/${id}` };
        statuses.push(status);
        if (key) byKey.set(key, status);
      }
      res.end(JSON.stringify(status));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    statuses,
    requests,
    failNext: (status, message, times = 1) => {
      failures = Array.from({ length: times }, () => ({ status, message }));
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A connector for the fake platform; `afterPublish` runs once the platform answered. */
export function platformConnector(url: string, afterPublish?: () => void): Connector {
  return {
    async publish(req) {
      const res = await fetch(`${url}/statuses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': req.idempotencyKey },
        body: JSON.stringify({ status: req.post.body }),
        signal: req.signal,
      });
      const body = (await res.json()) as Status & { error?: string };
      if (!res.ok)
        throw new PublicationError(body.error ?? `HTTP ${res.status}`, {
          retryable: res.status >= 500 || res.status === 429,
        });
      afterPublish?.();
      return { externalPostId: body.id, permalinkUrl: body.url };
    },
  };
}
