// A request from another client address: loopback is all of 127.0.0.0/8, so binding the
// socket's local end to 127.0.0.2 (or .3, ...) reaches the server on 127.0.0.1 as another
// machine would, with no X-Forwarded-For to trust. The path goes out as written (no URL
// parsing tidies its dots, case or encoding), as a prober would send it.
import http from 'node:http';
import type { Reply } from './server.ts';

export async function callFrom(
  localAddress: string,
  server: { baseUrl: string },
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request(
      server.baseUrl,
      { path, method, headers, localAddress, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {}
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, one);
          resolve({ status: res.statusCode ?? 0, headers: out, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
