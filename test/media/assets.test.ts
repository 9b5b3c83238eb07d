// The media library over REST (SPEC.md "REST: media"): raw image upload probed from the
// bytes, its bounds, listing with cursor paging, serving, deleting, and storage accounting.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertAsset } from '../../core/assets/db.ts';
import { MAX_IMAGE_BYTES } from '../../core/assets/schema.ts';
import { assetUrlKey, signAssetUrl } from '../../core/assets/signedUrls.ts';
import { createBrand } from '../../core/brands/service.ts';
import { STORAGE_QUOTA_BYTES } from '../../core/kernel/plans.ts';
import { callTool } from '../support/engagement.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { noisePng } from '../support/noiseImage.ts';
import { useStorageEnv } from '../support/s3.ts';
import {
  call,
  makeAccount,
  makeKey,
  TEST_MEDIA_URL_SECRET,
  TEST_SESSION_SECRET,
} from '../support/server.ts';
import { type TestAccount, type TestServer, useService } from '../support/service.ts';

// Both storage drivers run the same suite: fs, and s3 against a local S3-compatible server.
describe.each(['fs', 's3'] as const)('with %s storage', (driver) => {
  const driverEnv = useStorageEnv(driver);
  const svc = useService(() => ({
    env: driverEnv.env,
    account: { scopes: ['read', 'media', 'publish'] },
  }));
  let server: TestServer, owner: TestAccount, key: string;
  let png: Buffer;
  let jpeg: Buffer;

  const image = (format: 'png' | 'jpeg', width = 64, height = 48) =>
    sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
      [format]()
      .toBuffer();

  beforeAll(async () => {
    ({ server, acct: owner, key } = svc);
    png = await image('png');
    jpeg = await image('jpeg', 80, 60);
  });

  async function upload(bytes: Buffer, contentType: string, query = '', k = key) {
    const res = await fetch(`${server.baseUrl}/v1/assets/upload${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k}`, 'content-type': contentType },
      body: new Uint8Array(bytes),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  /** GET an asset address the service gave out, on this test server. */
  const fetchAs = (url: string, k: string) =>
    fetch(`${server.baseUrl}${new URL(url).pathname}`, {
      headers: { authorization: `Bearer ${k}` },
    });

  const countAssets = async () =>
    (await server.pool.query('select count(*)::int as n from assets')).rows[0].n;
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  describe('POST /v1/assets/upload', () => {
    it.each([
      ['PNG', () => png, 'image/png', 64, 48],
      ['JPEG', () => jpeg, 'image/jpeg', 80, 60],
    ])(
      'stores a %s with the facts probed from its bytes',
      async (_n, bytes, type, width, height) => {
        const res = await upload(bytes(), type, '?filename=banner.img');
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({
          kind: 'image',
          mime: type,
          bytes: bytes().length,
          width,
          height,
          duration_s: null,
          filename: 'banner.img',
          sha256: sha(bytes()),
        });
        const content = await fetchAs(res.body.url, key);
        expect(content.headers.get('content-type')).toBe(type);
        expect(Buffer.from(await content.arrayBuffer()).equals(bytes())).toBe(true);
        const thumb = await fetchAs(res.body.thumbnail_url, key);
        expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).format).toBe(
          'webp',
        );
      },
    );

    it('keeps alt text given with the upload, and refuses one over 1,500 characters', async () => {
      const res = await upload(png, 'image/png', `?alt_text=${encodeURIComponent('A red square')}`);
      expect(res.status).toBe(201);
      expect(res.body.alt_text).toBe('A red square');
      expect((await upload(png, 'image/png')).body.alt_text).toBeNull();
      const before = await countAssets();
      const long = await upload(png, 'image/png', `?alt_text=${'a'.repeat(1_501)}`);
      expect(long.status).toBe(422);
      expect(long.body.detail[0].loc).toEqual(['query', 'alt_text']);
      expect(await countAssets()).toBe(before);
    });

    it('takes the media type from the bytes, not the header', async () => {
      const res = await upload(png, 'image/jpeg');
      expect(res.status).toBe(201);
      expect(res.body.mime).toBe('image/png');
    });

    it('refuses a PNG sent as video/mp4: video goes through the chunked upload', async () => {
      const before = await countAssets();
      const res = await upload(png, 'video/mp4');
      expect(res.status).toBe(415);
      expect(res.body.detail).toMatch(/chunked/);
      expect(await countAssets()).toBe(before);
    });

    it('refuses bytes that are not a decodable image, storing nothing', async () => {
      const before = await countAssets();
      const res = await upload(Buffer.from('<html>not an image</html>'), 'image/png');
      expect(res.status).toBe(422);
      expect(res.body.detail[0].type).toBe('not_an_image');
      expect(await countAssets()).toBe(before);
    });

    const usedBytes = async () =>
      (await call(server, 'GET', '/v1/assets', { key })).body.storage.used_bytes;

    it('refuses an image over 50 megapixels with 422 naming the limit, storing nothing', async () => {
      // A few hundred KB of PNG that would decode to 576 MB.
      const huge = await sharp({
        create: { width: 12_000, height: 12_000, channels: 3, background: '#ffffff' },
      })
        .png({ compressionLevel: 9 })
        .toBuffer();
      const [before, used] = [await countAssets(), await usedBytes()];
      const res = await upload(huge, 'image/png');
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'too_many_pixels' });
      expect(res.body.detail[0].msg).toMatch(/12000×12000 .*at most 50,000,000 pixels/);
      expect([await countAssets(), await usedBytes()]).toEqual([before, used]);
    });

    it('refuses a truncated image whose header alone looks whole, storing nothing', async () => {
      const whole = await noisePng(64, 64);
      const truncated = whole.subarray(0, whole.length / 2);
      // The header still gives the size: reading only metadata would take it.
      expect(await sharp(truncated).metadata()).toMatchObject({ width: 64, height: 64 });
      const [before, used] = [await countAssets(), await usedBytes()];
      const res = await upload(truncated, 'image/png');
      expect(res.status).toBe(422);
      expect(res.body.detail[0].type).toBe('corrupt_image');
      expect(res.body.detail[0].msg).toMatch(/truncated or corrupt/);
      expect([await countAssets(), await usedBytes()]).toEqual([before, used]);
    });

    it('accepts exactly 15 MB and refuses one byte more with 413', async () => {
      const big = await sharp({
        create: { width: 64, height: 64, channels: 3, background: '#336699' },
      })
        .jpeg()
        .toBuffer();
      // A JPEG decodes up to its end marker; padding after it makes the size exact.
      const exact = Buffer.concat([big, Buffer.alloc(MAX_IMAGE_BYTES - big.length)]);
      const ok = await upload(exact, 'image/jpeg');
      expect(ok.status).toBe(201);
      expect(ok.body.bytes).toBe(MAX_IMAGE_BYTES);
      const before = await countAssets();
      const over = await upload(Buffer.concat([exact, Buffer.from([0])]), 'image/jpeg');
      expect(over.status).toBe(413);
      expect(over.body.detail).toBe('An image upload holds at most 15 MB.');
      expect(await countAssets()).toBe(before);
    });

    it('refuses an upload over the storage quota with 413 quota_exceeded (REST and MCP) and stores nothing', async () => {
      const acct = await makeAccount(server.pool);
      const k = await makeKey(server.pool, acct.accountId, ['media', 'read']);
      await insertAsset(server.pool, {
        accountId: acct.accountId,
        kind: 'image',
        mime: 'image/png',
        bytes: STORAGE_QUOTA_BYTES.plus - 10,
      });
      const res = await upload(png, 'image/png', '', k);
      expect(res.status).toBe(413);
      // The account is full, the body is not too large: the code says which.
      expect(res.body.code).toBe('quota_exceeded');
      expect(res.body.detail).toMatch(
        /^Storage quota of 10 GB would be exceeded \(10 GB used, 0 bytes reserved by unfinished uploads\)/,
      );
      const client = await connectMcp(server, k);
      try {
        const answer = await callTool(client, 'upload_asset', {
          data_base64: png.toString('base64'),
        });
        expect(answer.isError).toBe(true);
        expect(answer.text).toMatch(/^quota_exceeded: Storage quota/);
      } finally {
        await client.close();
      }
      const list = await call(server, 'GET', '/v1/assets', { key: k });
      expect(list.body.assets).toHaveLength(1);
    });

    it('needs the media scope', async () => {
      const reader = await makeKey(server.pool, owner.accountId, ['read']);
      const res = await upload(png, 'image/png', '', reader);
      expect(res.status).toBe(403);
      expect(res.body.required_scope).toBe('media');
    });
  });

  describe('signed addresses', () => {
    it('serve the bytes without a credential until they expire, and nothing when tampered with', async () => {
      const { body: asset } = await upload(png, 'image/png');
      const signed = new URL(asset.signed_url);
      const open = await fetch(`${server.baseUrl}${signed.pathname}${signed.search}`);
      expect(open.status).toBe(200);
      expect(Buffer.from(await open.arrayBuffer()).equals(png)).toBe(true);
      const sig = signed.searchParams.get('sig')!;
      const flipped = `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
      const tampered = `${server.baseUrl}${signed.pathname}?expires=${signed.searchParams.get('expires')}&sig=${flipped}`;
      expect((await fetch(tampered)).status).toBe(404);
      const key = assetUrlKey(TEST_MEDIA_URL_SECRET);
      const expired = new URL(
        signAssetUrl(server.baseUrl, key, asset.id, Date.now() - 2 * 3600_000),
      );
      expect((await fetch(`${server.baseUrl}${expired.pathname}${expired.search}`)).status).toBe(
        404,
      );
      const later = new URL(signAssetUrl(server.baseUrl, key, asset.id));
      expect((await fetch(`${server.baseUrl}${later.pathname}${later.search}`)).status).toBe(200);
    });

    it('cannot be forged from the session secret nor made to last beyond the TTL', async () => {
      const { body: asset } = await upload(png, 'image/png');
      const status = async (url: string) => {
        const u = new URL(url);
        return (await fetch(`${server.baseUrl}${u.pathname}${u.search}`)).status;
      };
      // The session secret signs cookies only: media addresses have their own key.
      const fromSession = assetUrlKey(TEST_SESSION_SECRET);
      expect(await status(signAssetUrl(server.baseUrl, fromSession, asset.id))).toBe(404);
      // The right key, but an expiry ten years ahead: no address of ours lives that long.
      const key = assetUrlKey(TEST_MEDIA_URL_SECRET);
      const tenYears = Date.now() + 10 * 365 * 86_400_000;
      expect(await status(signAssetUrl(server.baseUrl, key, asset.id, tenYears))).toBe(404);
      // Another process whose clock runs half a minute ahead still signs valid addresses.
      expect(await status(signAssetUrl(server.baseUrl, key, asset.id, Date.now() + 30_000))).toBe(
        200,
      );
    });
  });

  describe('GET /v1/assets', () => {
    let acct: TestAccount;
    let k: string;
    let brandId: string;
    beforeAll(async () => {
      acct = await makeAccount(server.pool);
      k = await makeKey(server.pool, acct.accountId, ['read', 'media']);
      brandId = (await createBrand(server.pool, acct.accountId, { name: 'Other' })).id;
      for (let i = 0; i < 5; i++) await upload(png, 'image/png', `?filename=photo-${i}.png`, k);
      await upload(jpeg, 'image/jpeg', `?filename=logo.jpg&brand_id=${brandId}`, k);
    });

    it('lists newest first with storage used and the quota', async () => {
      const res = await call(server, 'GET', '/v1/assets', { key: k });
      expect(res.status).toBe(200);
      expect(res.body.assets.map((a: any) => a.filename)).toEqual([
        'logo.jpg',
        'photo-4.png',
        'photo-3.png',
        'photo-2.png',
        'photo-1.png',
        'photo-0.png',
      ]);
      expect(res.body.storage).toEqual({
        used_bytes: png.length * 5 + jpeg.length,
        reserved_bytes: 0,
        quota_bytes: STORAGE_QUOTA_BYTES.plus,
      });
      expect(res.body.next_cursor).toBeNull();
    });

    it('pages with an opaque cursor until next_cursor is null', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await call(
          server,
          'GET',
          `/v1/assets?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { key: k },
        );
        seen.push(...res.body.assets.map((a: any) => a.id));
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(seen).toHaveLength(6);
      expect(new Set(seen).size).toBe(6);
      expect((await call(server, 'GET', '/v1/assets?cursor=bogus', { key: k })).status).toBe(422);
    });

    it('filters by q, kind and brand_id, and bounds limit to 1-200', async () => {
      expect((await call(server, 'GET', '/v1/assets?q=LOGO', { key: k })).body.assets).toHaveLength(
        1,
      );
      expect(
        (await call(server, 'GET', '/v1/assets?kind=video', { key: k })).body.assets,
      ).toHaveLength(0);
      expect(
        (await call(server, 'GET', `/v1/assets?brand_id=${brandId}`, { key: k })).body.assets.map(
          (a: any) => a.filename,
        ),
      ).toEqual(['logo.jpg']);
      // Uploads without brand_id belong to the brand selected in the dashboard (CONTRACT.md).
      expect(
        (await call(server, 'GET', `/v1/assets?brand_id=${acct.brandId}`, { key: k })).body.assets,
      ).toHaveLength(5);
      expect((await call(server, 'GET', '/v1/assets?limit=0', { key: k })).status).toBe(422);
      expect((await call(server, 'GET', '/v1/assets?limit=201', { key: k })).status).toBe(422);
      expect(
        (await call(server, 'GET', `/v1/assets?brand_id=${owner.brandId}`, { key: k })).status,
      ).toBe(404);
    });

    it("never shows another account's assets", async () => {
      const res = await call(server, 'GET', '/v1/assets', { key });
      expect(res.body.assets.map((a: any) => a.filename)).not.toContain('logo.jpg');
    });
  });

  describe('DELETE /v1/assets/{id}', () => {
    it('deletes with 204, frees storage, and then answers 404; another account gets 404', async () => {
      const acct = await makeAccount(server.pool);
      const k = await makeKey(server.pool, acct.accountId, ['read', 'media']);
      const { body: asset } = await upload(png, 'image/png', '', k);
      expect((await call(server, 'DELETE', `/v1/assets/${asset.id}`, { key })).status).toBe(404);
      const res = await call(server, 'DELETE', `/v1/assets/${asset.id}`, { key: k });
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expect((await call(server, 'DELETE', `/v1/assets/${asset.id}`, { key: k })).status).toBe(404);
      expect((await call(server, 'GET', '/v1/assets', { key: k })).body.storage.used_bytes).toBe(0);
      expect((await fetchAs(asset.url, k)).status).toBe(404);
    });

    it('an uploaded image attaches to a post; the content is not served to another account', async () => {
      const { body: asset } = await upload(png, 'image/png');
      const post = await call(server, 'POST', '/v1/posts', {
        key,
        body: { platform: 'bluesky', body: 'pic', asset_ids: [asset.id] },
      });
      expect(post.body).toMatchObject({ kind: 'image', asset_ids: [asset.id] });
      const other = await makeAccount(server.pool);
      const otherKey = await makeKey(server.pool, other.accountId, ['read']);
      expect((await fetchAs(asset.url, otherKey)).status).toBe(404);
    });
  });
});
