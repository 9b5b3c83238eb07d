// URL ingest (POST /v1/assets): public images and videos through the outbound guard, at most
// three checked redirects, and clear refusals for pages, errors and private addresses.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORAGE_QUOTA_BYTES } from '../../core/kernel/plans.ts';
import { testPatternVideo } from '../support/noiseVideo.ts';
import { call, makeAccount, makeKey, startServer } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, type TestServer, useService } from '../support/service.ts';

const svc = useService({ env: LOOPBACK_OUTBOUND, account: { scopes: ['read', 'media'] } });
let server: TestServer, key: string;
let files: Server;
let base: string;
let png: Buffer;
let huge: Buffer;
let mp4: Buffer;

beforeAll(async () => {
  ({ server, key } = svc);
  png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#0a0' } })
    .png()
    .toBuffer();
  huge = await sharp({ create: { width: 12_000, height: 12_000, channels: 3, background: '#fff' } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  mp4 = await testPatternVideo();
  files = createServer((req, res) => {
    const url = req.url ?? '/';
    const redirect = /^\/r(\d+)$/.exec(url);
    if (redirect) {
      const n = Number(redirect[1]);
      return res.writeHead(302, { location: n > 1 ? `/r${n - 1}` : '/photo.png' }).end();
    }
    if (url === '/photo.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    if (url === '/huge.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(huge);
    if (url === '/clip.mp4') return res.writeHead(200, { 'content-type': 'video/mp4' }).end(mp4);
    if (url === '/page.html')
      return res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    if (url === '/fake.png')
      return res.writeHead(200, { 'content-type': 'image/png' }).end('<html>login</html>');
    if (url === '/private') return res.writeHead(401).end();
    if (url === '/endless.mp4') {
      // 128 MB with no Content-Length, 64 KB at a time, counting what the socket took. The
      // count includes what loopback's kernel buffers hold (tens of MB when the client is
      // slow under load), so the test bounds it well below the whole file, not near 100 KB.
      res.writeHead(200, { 'content-type': 'video/mp4' });
      const chunk = Buffer.alloc(65_536);
      const send = () => {
        while (streamed < 128 * 1024 * 1024 && !res.destroyed) {
          streamed += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', send);
        }
        res.end();
      };
      res.on('close', () => undefined);
      return send();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => files.close(r));
});

const ingest = (url: string, k = key, s: { baseUrl: string } = server) =>
  call(s, 'POST', '/v1/assets', { key: k, body: { url } });

let streamed = 0;

describe('POST /v1/assets', () => {
  it('downloads no more of a video than the storage quota has room for', async () => {
    const acct = await makeAccount(server.pool);
    const k = await makeKey(server.pool, acct.accountId, ['read', 'media']);
    // 100 KB of room left.
    await server.pool.query('update accounts set storage_used_bytes = $2 where id = $1', [
      acct.accountId,
      STORAGE_QUOTA_BYTES.plus - 100_000,
    ]);
    streamed = 0;
    const res = await ingest(`${base}/endless.mp4`, k);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({
      code: 'quota_exceeded',
      detail:
        'Storage quota of 10 GB would be exceeded by this file (10 GB used, 0 bytes reserved ' +
        'by unfinished uploads); delete assets first.',
    });
    expect(streamed).toBeLessThan(48 * 1024 * 1024);
    const full = await ingest(`${base}/clip.mp4`, k);
    expect(full.status).toBe(201); // the small clip still fits
  });

  it('imports an image, naming it after the URL', async () => {
    const res = await ingest(`${base}/photo.png`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'image',
      mime: 'image/png',
      width: 30,
      height: 20,
      filename: 'photo.png',
      bytes: png.length,
    });
  });

  it('refuses an image over 50 megapixels with 422, storing nothing', async () => {
    const listed = async () => (await call(server, 'GET', '/v1/assets', { key })).body;
    const before = await listed();
    const res = await ingest(`${base}/huge.png`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('too_many_pixels');
    expect(res.body.detail[0].msg).toMatch(/at most 50,000,000 pixels/);
    const after = await listed();
    expect(after.assets).toHaveLength(before.assets.length);
    expect(after.storage.used_bytes).toBe(before.storage.used_bytes);
  });

  it('imports a video, probed with ffprobe', async () => {
    const res = await ingest(`${base}/clip.mp4`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'video',
      mime: 'video/mp4',
      width: 160,
      height: 120,
      filename: 'clip.mp4',
    });
    expect(res.body.duration_s).toBeGreaterThan(0.5);
  });

  it('follows three redirects and refuses a fourth', async () => {
    expect((await ingest(`${base}/r3`)).status).toBe(201);
    const four = await ingest(`${base}/r4`);
    expect(four.status).toBe(422);
    expect(four.body.detail[0].msg).toMatch(/more than 3 redirects/);
  });

  it.each([
    ['/page.html', /text\/html, not an image or video/],
    ['/fake.png', /not a decodable image/],
    ['/private', /HTTP 401/],
    ['/missing', /HTTP 404/],
  ])('refuses %s with a 422 that says why', async (path, why) => {
    const res = await ingest(`${base}${path}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toMatch(why);
  });

  it('refuses a loopback address when the allowlist is empty, without fetching', async () => {
    const strict = await startServer({ env: { OUTBOUND_ALLOW_HTTP: 'true' } });
    try {
      const acct = await makeAccount(strict.pool);
      const k = await makeKey(strict.pool, acct.accountId, ['media']);
      const res = await ingest(`${base}/photo.png`, k, strict);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].msg).toMatch(/does not resolve to a public address/);
    } finally {
      await strict.close();
    }
  });
});
