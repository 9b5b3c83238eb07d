// Property-based fuzzing of GET /media/platform/{asset_id}, the address platforms fetch media
// from without a credential: any query or path that is not exactly a valid signed address of
// that asset (hostile values, a valid one changed by one character, the one-hour signature,
// another asset's id, extra or repeated parameters) is refused with a 4xx and never serves a
// byte; any Range header on a valid address answers 200, 206 or 416, consistently.
// FUZZ_RUNS and FUZZ_SEED tune the runs.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { assetUrlKey, signAssetUrl, signPlatformMediaUrl } from '../../core/assets/service.ts';
import {
  encodeLoosely,
  fuzzParams,
  hostileString,
  hostileValue,
  pathSegment,
  queryString,
} from '../support/arbitraries.ts';
import { noisePng } from '../support/noiseImage.ts';
import { TEST_MEDIA_URL_SECRET } from '../support/server.ts';
import { useService } from '../support/service.ts';

const KEY = assetUrlKey(TEST_MEDIA_URL_SECRET);

const svc = useService({ account: { scopes: ['read', 'media'] } });
let png: Buffer;
let assetId: string;
let otherId: string;
/** The valid address's query (expires, sig), and the one-hour address's. */
let valid: { expires: string; sig: string };
let hourly: { expires: string; sig: string };

const upload = async (bytes: Buffer) => {
  const res = await fetch(`${svc.server.baseUrl}/v1/assets/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'image/png' },
    body: new Uint8Array(bytes),
  });
  return ((await res.json()) as { id: string }).id;
};
const queryOf = (url: string) => {
  const q = new URL(url).searchParams;
  return { expires: q.get('expires')!, sig: q.get('sig')! };
};

beforeAll(async () => {
  png = await noisePng(32, 32);
  assetId = await upload(png);
  otherId = await upload(await noisePng(4, 4));
  valid = queryOf(signPlatformMediaUrl(svc.server.baseUrl, KEY, assetId));
  hourly = queryOf(signAssetUrl(svc.server.baseUrl, KEY, assetId));
});

/** One character of `text` changed, removed or doubled. */
const oneCharOff = (text: string) =>
  fc
    .tuple(fc.nat({ max: Math.max(0, text.length - 1) }), fc.constantFrom('change', 'drop', 'dup'))
    .map(([i, how]) => {
      const c = text[i] ?? '';
      if (how === 'drop') return text.slice(0, i) + text.slice(i + 1);
      if (how === 'dup') return text.slice(0, i) + c + text.slice(i);
      return text.slice(0, i) + (c === 'A' ? 'B' : 'A') + text.slice(i + 1);
    });

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${svc.server.baseUrl}${path}`, { headers }).then(async (res) => ({
    status: res.status,
    body: Buffer.from(await res.arrayBuffer()),
    headers: res.headers,
  }));

describe('GET /media/platform/{asset_id}', () => {
  it('serves nothing for a query or path other than the valid address', async () => {
    // Each arbitrary makes a request that must not pass: the id and the query together.
    const request = fc.oneof(
      // Hostile values in place of the query.
      fc
        .record({ expires: fc.oneof(hostileString, hostileValue), sig: hostileString })
        .map((q) => ({ id: assetId, query: queryString(q) })),
      // The valid address, one character off in its expiry or its signature.
      fc
        .oneof(
          oneCharOff(valid.sig).map((sig) => ({ ...valid, sig })),
          oneCharOff(valid.expires).map((expires) => ({ ...valid, expires })),
        )
        .filter((q) => q.sig !== valid.sig || q.expires !== valid.expires)
        .map((q) => ({ id: assetId, query: queryString(q) })),
      // The one-hour address's query; the valid query on another asset or a hostile id.
      fc.constant({ id: assetId, query: queryString(hourly) }),
      fc.constant({ id: otherId, query: queryString(valid) }),
      pathSegment(fc.oneof(hostileString, fc.constantFrom('0', '-1', `${assetId}0`))).map((id) => ({
        id,
        query: queryString(valid),
      })),
      // Parameters repeated with another value, or missing.
      fc
        .constantFrom(
          `?expires=${valid.expires}&sig=${encodeLoosely(hourly.sig)}&sig=${encodeLoosely(valid.sig)}`,
          `?expires=${valid.expires}&expires=${valid.expires}&sig=${encodeLoosely(valid.sig)}`,
          `?sig=${encodeLoosely(valid.sig)}`,
          `?expires=${valid.expires}`,
          '',
        )
        .map((query) => ({ id: assetId, query })),
    );
    await fc.assert(
      fc.asyncProperty(request, async ({ id, query }) => {
        if (id === assetId && query === queryString(valid)) return;
        const res = await get(`/media/platform/${id}${query}`);
        expect(res.status, `${id}${query} → ${res.status}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${id}${query}`).toBeLessThan(500);
        expect(res.body.includes(png.subarray(0, 64))).toBe(false);
      }),
      fuzzParams(150),
    );
    // And the valid address itself still serves the bytes.
    expect((await get(`/media/platform/${assetId}${queryString(valid)}`)).body.equals(png)).toBe(
      true,
    );
  });

  it('answers any Range header with the whole body, the range asked for, or 416', async () => {
    const range = fc.oneof(
      fc
        .tuple(
          fc.option(fc.nat({ max: png.length * 2 })),
          fc.option(fc.nat({ max: png.length * 2 })),
        )
        .map(([a, b]) => `bytes=${a ?? ''}-${b ?? ''}`),
      hostileString.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      fc.constantFrom('bytes=0-1,3-4', 'bytes=--1', 'bytes=1-2-3', 'bytes= 0-1', 'Bytes=0-1'),
    );
    await fc.assert(
      fc.asyncProperty(range, async (header) => {
        const res = await get(`/media/platform/${assetId}${queryString(valid)}`, { range: header });
        expect([200, 206, 416], `${header} → ${res.status}`).toContain(res.status);
        if (res.status === 200) expect(res.body.equals(png)).toBe(true);
        if (res.status === 416)
          expect(res.headers.get('content-range')).toBe(`bytes */${png.length}`);
        if (res.status === 206) {
          const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers.get('content-range') ?? '');
          expect(m, header).not.toBeNull();
          const [start, end, size] = m!.slice(1).map(Number) as [number, number, number];
          expect(size).toBe(png.length);
          expect(res.body.equals(png.subarray(start, end + 1))).toBe(true);
        }
      }),
      fuzzParams(150),
    );
  });
});
