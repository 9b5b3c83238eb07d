// The parts of a Bluesky record built without the network: facets located by UTF-8 byte
// offsets, deterministic TIDs, and images fitted under the 1,000,000-byte blob limit.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { facetsOf, findRichText } from '../../core/connectors/bluesky/facets.ts';
import { BLUESKY_IMAGE_MAX_BYTES, fitImage } from '../../core/connectors/bluesky/images.ts';
import { deterministicTid, encodeTid, isTid } from '../../core/connectors/bluesky/tid.ts';
import { noisePng } from '../support/noiseImage.ts';

/** The UTF-8 bytes a facet's index covers, decoded again. */
const covered = (text: string, f: { index: { byteStart: number; byteEnd: number } }) =>
  Buffer.from(text, 'utf8').subarray(f.index.byteStart, f.index.byteEnd).toString('utf8');

describe('facets', () => {
  it('locates links, mentions and tags by byte offsets, after multi-byte text', async () => {
    const text = 'Café 🚀 launch: see https://example.com/a?b=1. Thanks @bob.test! #Launch2026 #1';
    const facets = await facetsOf(text, async (h) => (h === 'bob.test' ? 'did:plc:bob' : null));
    expect(facets.map((f) => [covered(text, f), f.features[0]])).toEqual([
      [
        'https://example.com/a?b=1',
        { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/a?b=1' },
      ],
      ['@bob.test', { $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:bob' }],
      ['#Launch2026', { $type: 'app.bsky.richtext.facet#tag', tag: 'Launch2026' }],
    ]);
    // "é" and "🚀" take 2 and 4 bytes: the offsets are bytes, not UTF-16 units.
    expect(facets[0]!.index.byteStart).toBe(text.indexOf('https') + 1 + 2);
  });

  it('leaves unresolved mentions, e-mail addresses and URL fragments as plain text', async () => {
    const text = 'mail a@b.example or @nobody.test, read https://x.example/#frag';
    const facets = await facetsOf(text, async () => null);
    expect(facets.map((f) => covered(text, f))).toEqual(['https://x.example/#frag']);
    expect(
      findRichText('(see https://x.example/p)').map((f) => f.kind === 'link' && f.uri),
    ).toEqual(['https://x.example/p']);
  });
});

describe('record keys', () => {
  it('are valid TIDs, the same for the same attempt and different across attempts', () => {
    const due = new Date('2026-11-22T10:00:00Z');
    const a = deterministicTid(due, 'post-uuid.1');
    expect(isTid(a)).toBe(true);
    expect(deterministicTid(due, 'post-uuid.1')).toBe(a);
    expect(deterministicTid(due, 'post-uuid.2')).not.toBe(a);
    // Sortable by time: a later due time gives a later key.
    expect(deterministicTid(new Date(due.getTime() + 1000), 'post-uuid.1') > a).toBe(true);
  });

  it('encode 53 bits of microseconds and 10 of clock id as in the spec', () => {
    // Zero is thirteen "2"s, the alphabet's first character (atproto.com/specs/tid).
    expect(encodeTid(0n, 0)).toBe('2222222222222');
    expect(isTid(encodeTid(1_700_000_000_000_000n, 1023))).toBe(true);
  });
});

describe('images for Bluesky', () => {
  it('passes a small image through and re-encodes a large one under 1,000,000 bytes', async () => {
    const small = await sharp({
      create: { width: 40, height: 20, channels: 3, background: '#f00' },
    })
      .png()
      .toBuffer();
    expect(await fitImage(small, 'image/png')).toEqual({
      bytes: small,
      mime: 'image/png',
      width: 40,
      height: 20,
    });
    const large = await noisePng(900, 600);
    expect(large.length).toBeGreaterThan(BLUESKY_IMAGE_MAX_BYTES);
    const fitted = await fitImage(large, 'image/png');
    expect(fitted.bytes.length).toBeLessThanOrEqual(BLUESKY_IMAGE_MAX_BYTES);
    expect(fitted.mime).toBe('image/jpeg');
    expect(fitted.width / fitted.height).toBeCloseTo(1.5, 2);
    const meta = await sharp(fitted.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([fitted.width, fitted.height]);
    // The same input gives the same bytes, so a retried upload gives the same blob.
    expect((await fitImage(large, 'image/png')).bytes.equals(fitted.bytes)).toBe(true);
  });
});
