// GET /media/platform/{asset_id}: the day-long addresses platforms fetch media from
// (PublicMedia), apart from the one-hour signed addresses, serving exactly one asset.
import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  assetUrlKey,
  PUBLIC_MEDIA_TTL_S,
  publicMediaFor,
  signAssetUrl,
  signPlatformMediaUrl,
} from '../../core/assets/service.ts';
import type { PublishMedia } from '../../core/connectors/schema.ts';
import { noisePng } from '../support/noiseImage.ts';
import { useStorageEnv } from '../support/s3.ts';
import { call, TEST_MEDIA_URL_SECRET, TEST_SESSION_SECRET } from '../support/server.ts';
import { useService } from '../support/service.ts';

const KEY = assetUrlKey(TEST_MEDIA_URL_SECRET);
const HOUR_MS = 3_600_000;

/** The asset as a connector sees it: PublicMedia needs only its id. */
const media = (id: string) => ({ id }) as PublishMedia;

describe.each(['fs', 's3'] as const)('with %s storage', (driver) => {
  const driverEnv = useStorageEnv(driver);
  const svc = useService(() => ({ env: driverEnv.env, account: { scopes: ['read', 'media'] } }));
  let png: Buffer;
  let assetId: string;
  let otherId: string;

  const upload = async (bytes: Buffer) => {
    const res = await fetch(`${svc.server.baseUrl}/v1/assets/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'image/png' },
      body: new Uint8Array(bytes),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };

  /** Fetches an address the service signed, on this test server. */
  const get = (url: string, init: RequestInit = {}) => {
    const u = new URL(url);
    return fetch(`${svc.server.baseUrl}${u.pathname}${u.search}`, init);
  };
  const platformUrl = (id: string, now = Date.now()) =>
    signPlatformMediaUrl(svc.server.baseUrl, KEY, id, now);

  beforeAll(async () => {
    png = await noisePng(64, 64);
    assetId = await upload(png);
    otherId = await upload(await noisePng(8, 8));
  });

  describe('a valid address', () => {
    it("serves exactly the asset's bytes with its type and length, without a credential", async () => {
      const pm = publicMediaFor({
        publicBaseUrl: svc.server.baseUrl,
        mediaUrlSecret: TEST_MEDIA_URL_SECRET,
      });
      const res = await get(pm.urlOf(media(assetId)));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-length')).toBe(String(png.length));
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);
    });

    it('lives a day: one signed 23 hours ago still serves, one of 25 hours ago does not', async () => {
      expect(PUBLIC_MEDIA_TTL_S).toBe(86_400);
      expect((await get(platformUrl(assetId, Date.now() - 23 * HOUR_MS))).status).toBe(200);
      expect((await get(platformUrl(assetId, Date.now() - 25 * HOUR_MS))).status).toBe(404);
    });

    it('answers HEAD with the type and length and no body', async () => {
      const res = await get(platformUrl(assetId), { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-length')).toBe(String(png.length));
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    });
  });

  describe('a single Range', () => {
    it.each([
      ['bytes=0-99', 0, 99],
      ['bytes=100-', 100, undefined],
      ['bytes=-50', -50, undefined],
      ['bytes=10-999999999', 10, undefined],
    ])('%s answers 206 with those bytes', async (range, start, end) => {
      const res = await get(platformUrl(assetId), { headers: { range } });
      expect(res.status).toBe(206);
      const want = png.subarray(start < 0 ? png.length + start : start, end && end + 1);
      const first = start < 0 ? png.length + start : start;
      expect(res.headers.get('content-range')).toBe(
        `bytes ${first}-${first + want.length - 1}/${png.length}`,
      );
      expect(res.headers.get('content-length')).toBe(String(want.length));
      expect(Buffer.from(await res.arrayBuffer()).equals(want)).toBe(true);
    });

    it('a range past the end answers 416 with the size', async () => {
      const res = await get(platformUrl(assetId), { headers: { range: `bytes=${png.length}-` } });
      expect(res.status).toBe(416);
      expect(res.headers.get('content-range')).toBe(`bytes */${png.length}`);
    });

    it('several ranges or a malformed one get the whole body', async () => {
      for (const range of ['bytes=0-1,5-9', 'bytes=9-2', 'items=0-1']) {
        const res = await get(platformUrl(assetId), { headers: { range } });
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);
      }
    });
  });

  describe('anything else is 404', () => {
    const status = async (url: string) => (await get(url)).status;

    it("a one-hour address does not pass for a platform's, nor the reverse", async () => {
      const hourly = new URL(signAssetUrl(svc.server.baseUrl, KEY, assetId));
      const daily = new URL(platformUrl(assetId));
      // The one-hour signature on the platform route, and the day-long one on the asset route.
      expect(await status(`${svc.server.baseUrl}${daily.pathname}${hourly.search}`)).toBe(404);
      expect(await status(`${svc.server.baseUrl}${hourly.pathname}${daily.search}`)).toBe(404);
      // Both still work where they belong.
      expect(await status(hourly.href)).toBe(200);
      expect(await status(daily.href)).toBe(200);
    });

    it('a one-hour address cannot be made to last a day', async () => {
      // Signed by hand as a forger holding the key would: the asset's own subject, 20 hours on.
      const handSigned = (aheadS: number) => {
        const expires = Math.floor(Date.now() / 1000) + aheadS;
        const sig = createHmac('sha256', KEY).update(`${assetId}.${expires}`).digest('base64url');
        return `${svc.server.baseUrl}/media/${assetId}?expires=${expires}&sig=${sig}`;
      };
      expect(await status(handSigned(30 * 60))).toBe(200);
      expect(await status(handSigned(20 * 3600))).toBe(404);
    });

    it('a wrong signature, another key, an expired address, another asset', async () => {
      const good = new URL(platformUrl(assetId));
      const sig = good.searchParams.get('sig')!;
      const flipped = `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
      const expires = good.searchParams.get('expires');
      expect(await status(`${good.origin}${good.pathname}?expires=${expires}&sig=${flipped}`)).toBe(
        404,
      );
      expect(
        await status(
          signPlatformMediaUrl(svc.server.baseUrl, assetUrlKey(TEST_SESSION_SECRET), assetId),
        ),
      ).toBe(404);
      expect(
        await status(platformUrl(assetId, Date.now() - PUBLIC_MEDIA_TTL_S * 1000 - 1000)),
      ).toBe(404);
      // The address of one asset with the id of another.
      expect(await status(`${good.origin}/media/platform/${otherId}${good.search}`)).toBe(404);
      // An id no asset has, signed properly.
      expect(await status(platformUrl('999999999'))).toBe(404);
    });

    it('an asset deleted since its address was given', async () => {
      const id = await upload(await noisePng(4, 4));
      const url = platformUrl(id);
      expect(await status(url)).toBe(200);
      expect((await call(svc.server, 'DELETE', `/v1/assets/${id}`, { key: svc.key })).status).toBe(
        204,
      );
      expect(await status(url)).toBe(404);
      expect((await get(url, { method: 'HEAD' })).status).toBe(404);
    });
  });
});
