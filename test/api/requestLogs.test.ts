// What the request log keeps of a request: enough to trace it, never a credential. A signed
// media address is a credential until it expires, so its signature is cut from logged URLs.
import { Writable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.ts';
import { makeAccount, makeKey, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let logged = '';
beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged += chunk;
      done();
    },
  });
  server = await startServer({ logger: createLogger('info', sink) });
});
afterAll(() => server.close());

describe('signed media addresses in the request log', () => {
  it('a fetched signed address is logged without its signature', async () => {
    const owner = await makeAccount(server.pool);
    const key = await makeKey(server.pool, owner.accountId, ['read', 'media']);
    const png = await sharp({
      create: { width: 8, height: 8, channels: 3, background: { r: 9, g: 9, b: 9 } },
    })
      .png()
      .toBuffer();
    const up = await fetch(`${server.baseUrl}/v1/assets/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' },
      body: new Uint8Array(png),
    });
    const asset = (await up.json()) as { id: string; signed_url: string };
    const signed = new URL(asset.signed_url);
    const sig = signed.searchParams.get('sig')!;
    const res = await fetch(`${server.baseUrl}${signed.pathname}${signed.search}`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();

    const guessed = `${server.baseUrl}/media/${asset.id}?expires=1&sig=GuessedSignatureValue`;
    expect((await fetch(guessed)).status).toBe(404);
    // The query parser decodes keys, so `%73ig` is `sig`: the log must read it the same way.
    const encoded = await fetch(
      `${server.baseUrl}${signed.pathname}?expires=${signed.searchParams.get('expires')}&%73ig=${sig}`,
    );
    expect(encoded.status).toBe(200);
    await encoded.arrayBuffer();

    const lines = logged
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const urls = lines.filter((l) => l.req?.url?.startsWith('/media/')).map((l) => l.req.url);
    expect(urls).toContain(
      `/media/${asset.id}?expires=${signed.searchParams.get('expires')}&sig=[redacted]`,
    );
    expect(urls).toContain(`/media/${asset.id}?expires=1&sig=[redacted]`);
    expect(urls).toContain(
      `/media/${asset.id}?expires=${signed.searchParams.get('expires')}&%73ig=[redacted]`,
    );
    expect(logged).not.toContain(sig);
    expect(logged).not.toContain('GuessedSignatureValue');
  });
});
