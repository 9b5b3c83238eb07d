// The standing storage invariant (issue 15, item 1): after every step of a mix of uploads,
// renders, re-renders, design copies (only_this_post, frozen published posts), chunked uploads
// (finished and expired), refusals and deletes, the account's counter equals the sum of its
// assets' bytes, and its reservation the sizes of its open upload sessions (zero when none).
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupExpiredUploads } from '../../core/assets/chunked.ts';
import { insertAsset } from '../../core/assets/db.ts';
import { STORAGE_QUOTA_BYTES } from '../../core/kernel/plans.ts';
import { useDesignService } from '../support/designService.ts';
import { makeNoiseVideo } from '../support/noiseVideo.ts';
import { call } from '../support/server.ts';
import type { TestAccount } from '../support/service.ts';
import { storageBalance } from '../support/storageCounter.ts';
import { uploadPng } from '../support/uploads.ts';

const svc = useDesignService();
let acct: TestAccount, key: string;
let video: Buffer;
const file = path.join(os.tmpdir(), `sps-invariant-${process.pid}.mp4`);

beforeAll(async () => {
  ({ acct, key } = svc);
  // One second of noise: about 10 MB, two chunks.
  await makeNoiseVideo(file, 1);
  video = await readFile(file);
});
afterAll(async () => {
  await rm(file, { force: true });
});

const api = (method: string, url: string, body?: unknown) =>
  call(svc.server, method, url, { key, body });
const create = (body: Record<string, unknown>) =>
  api('POST', '/v1/posts', {
    platform: 'bluesky',
    body: 'Caption',
    brand_id: acct.brandId,
    ...body,
  });
const patch = (postId: string, body: Record<string, unknown>) =>
  api('PATCH', `/v1/posts/${postId}/design`, body);

/** The invariant, checked after each step. */
async function expectBalanced(step: string) {
  const b = await storageBalance(svc.server.pool, acct.accountId);
  expect(b.used, `${step}: storage_used_bytes`).toBe(b.assetBytes);
  expect(b.reserved, `${step}: storage_reserved_bytes`).toBe(b.sessionBytes);
  if (b.sessions === 0) expect(b.reserved, `${step}: reserved with no session`).toBe(0);
  return b;
}

async function chunkedUpload(size: number, bytes?: Buffer) {
  const session = await api('POST', '/v1/assets/upload/init', {
    filename: 'clip.mp4',
    size_bytes: size,
  });
  expect(session.status).toBe(200);
  const { upload_id, part_bytes, parts } = session.body;
  const sendParts = async (upTo = parts) => {
    for (let i = 0; i < upTo; i++) {
      const piece = (bytes ?? Buffer.alloc(size)).subarray(i * part_bytes, (i + 1) * part_bytes);
      const res = await fetch(
        `${svc.server.baseUrl}/v1/assets/upload/part?upload_id=${upload_id}&index=${i}`,
        {
          method: 'PUT',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
          body: new Uint8Array(piece),
        },
      );
      expect(res.status).toBe(200);
    }
  };
  return { upload_id, parts, sendParts };
}

const headline = (text: string, image?: string) => ({
  canvas: { aspect: 'square', bg: '#ffffff' },
  layers: [
    ...(image ? [{ kind: 'image', asset_id: image, x: 0, y: 0, w: 1080, h: 540 }] : []),
    { kind: 'text', text, x: 80, y: 600, w: 900, size: 90, cid: 'title' },
  ],
});

describe('the storage counter equals the assets’ bytes after every operation', () => {
  it('holds through uploads, renders, copies, chunked uploads, refusals and deletes', async () => {
    await expectBalanced('fresh account');

    const photo = await uploadPng(svc.server, key, { width: 300, height: 200 }, '#2a9d8f');
    const other = await uploadPng(svc.server, key, { width: 80, height: 80 }, '#e76f51');
    await expectBalanced('two image uploads');

    const first = await create({ layout: headline('Launch', photo) });
    expect(first.body.render_error).toBeNull();
    await expectBalanced('a render');
    const another = await create({ layout: headline('Another design', other) });
    expect(another.body.render_error).toBeNull();
    await expectBalanced('a second design rendered');

    const second = await create({ design_id: first.body.design_id, body: 'Shared' });
    expect(second.status).toBe(201);
    await expectBalanced('a post linked to the design');

    const page = { layers: [{ kind: 'text', text: 'Page', x: 80, y: 80, w: 900, size: 60 }] };
    expect((await patch(first.body.id, { layout: { pages: [page, page, page] } })).status).toBe(
      200,
    );
    await expectBalanced('a re-render to three pages');
    expect((await patch(first.body.id, { layout: headline('One again') })).status).toBe(200);
    await expectBalanced('a re-render back to one page');
    expect((await patch(first.body.id, {})).status).toBe(200);
    await expectBalanced('the same layout rendered again');

    const mine = await patch(second.body.id, {
      layout: headline('Only mine'),
      only_this_post: true,
    });
    expect(mine.status).toBe(200);
    expect(mine.body.design_id).not.toBe(first.body.design_id);
    await expectBalanced('only_this_post: a copy of the design rendered');

    const third = await create({ design_id: first.body.design_id, body: 'Third' });
    await svc.server.pool.query(
      `update posts set status = 'published', external_post_id = '1' where id = $1`,
      [first.body.id],
    );
    expect((await patch(third.body.id, { layout: headline('After publication') })).status).toBe(
      200,
    );
    await expectBalanced('a published post frozen on a copy, the design rendered anew');

    const finished = await chunkedUpload(video.length, video);
    await expectBalanced('a chunked upload opened');
    await finished.sendParts();
    await expectBalanced('its chunks received');
    const done = await api('POST', '/v1/assets/upload/finish', {
      upload_id: finished.upload_id,
      parts: finished.parts,
    });
    expect(done.status).toBe(201);
    const b = await expectBalanced('a chunked upload finished');
    expect(b.reserved).toBe(0);

    const expired = await chunkedUpload(20 * 1024 * 1024);
    await expired.sendParts(1);
    await expectBalanced('a chunked upload half sent');
    await svc.server.pool.query(
      `update upload_sessions set expires_at = now() - interval '1 second' where id = $1`,
      [expired.upload_id],
    );
    await cleanupExpiredUploads({ pool: svc.server.pool, storage: svc.storage });
    expect((await expectBalanced('an expired session cleaned')).reserved).toBe(0);

    const filler = await insertAsset(svc.server.pool, {
      accountId: acct.accountId,
      kind: 'image',
      mime: 'image/png',
      bytes: STORAGE_QUOTA_BYTES.plus - (await expectBalanced('before filling')).used - 50,
    });
    // Three pages where there was one: the render grows past the room left.
    const refused = await patch(third.body.id, { layout: { pages: [page, page, page] } });
    expect(refused.body.render_error).toMatch(/quota/);
    await expectBalanced('a render refused over the quota');
    expect(
      (await api('POST', '/v1/assets/upload/init', { filename: 'x.mp4', size_bytes: 51 })).status,
    ).toBe(413);
    await expectBalanced('a chunked upload refused over the quota');
    expect((await api('DELETE', `/v1/assets/${filler.id}`)).status).toBe(204);
    await expectBalanced('the filler deleted');

    const pages = (await api('GET', '/v1/assets?limit=100')).body.assets as { id: string }[];
    for (const asset of pages) {
      expect((await api('DELETE', `/v1/assets/${asset.id}`)).status).toBe(204);
      await expectBalanced(`asset ${asset.id} deleted`);
    }
    const emptied = await expectBalanced('everything deleted');
    expect(emptied).toMatchObject({ used: 0, assetBytes: 0, reserved: 0 });
  });
});
