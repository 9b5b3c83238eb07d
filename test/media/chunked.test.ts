import { createHash, randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupExpiredUploads } from '../../core/assets/chunked.ts';
import { insertAsset, insertUploadSession } from '../../core/assets/db.ts';
import { STORAGE_QUOTA_BYTES } from '../../core/kernel/plans.ts';
import type { Storage } from '../../core/storage/storage.ts';
import { makeNoiseVideo } from '../support/noiseVideo.ts';
import { presignedAccepts, useStorageEnv } from '../support/s3.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { type TestServer, useService } from '../support/service.ts';
import { storageBalance } from '../support/storageCounter.ts';

const MiB = 1024 * 1024;

// Both storage drivers run the same suite: fs, and s3 against a local S3-compatible server.
describe.each(['fs', 's3'] as const)('with %s storage', (driver) => {
  const driverEnv = useStorageEnv(driver);
  const svc = useService(() => ({ env: driverEnv.env, account: { scopes: ['read', 'media'] } }));
  let server: TestServer, key: string, storage: Storage;
  let video: Buffer;
  const file = path.join(os.tmpdir(), `sps-test-${process.pid}-${driver}.mp4`);

  beforeAll(async () => {
    ({ server, key, storage } = svc);
    // Two seconds: about 20 MB, so three chunks of 8 MB.
    await makeNoiseVideo(file, 2);
    video = await readFile(file);
  });
  afterAll(async () => {
    await rm(file, { force: true });
  });

  const init = (body: unknown, k = key) =>
    call(server, 'POST', '/v1/assets/upload/init', { key: k, body });
  const finish = (body: unknown, k = key) =>
    call(server, 'POST', '/v1/assets/upload/finish', { key: k, body });
  async function part(uploadId: string, index: number, bytes: Buffer, k = key) {
    const res = await fetch(
      `${server.baseUrl}/v1/assets/upload/part?upload_id=${encodeURIComponent(uploadId)}&index=${index}`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(bytes),
      },
    );
    return { status: res.status, body: (await res.json()) as any };
  }
  const chunks = (bytes: Buffer, size: number) =>
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
      bytes.subarray(i * size, (i + 1) * size),
    );

  describe('chunked upload', () => {
    it('joins chunks sent out of order and repeated, probes the video, and serves it back', async () => {
      const session = await init({ filename: 'clip.mp4', size_bytes: video.length });
      expect(session.status).toBe(200);
      const { upload_id, part_bytes, parts } = session.body;
      expect(part_bytes).toBeGreaterThanOrEqual(8 * 1024 * 1024);
      const pieces = chunks(video, part_bytes);
      expect(parts).toBe(pieces.length);
      expect(pieces.length).toBeGreaterThanOrEqual(2);
      for (const i of [...pieces.keys()].reverse())
        expect((await part(upload_id, i, pieces[i]!)).status).toBe(200);
      expect((await part(upload_id, 0, pieces[0]!)).body).toEqual({
        upload_id,
        index: 0,
        bytes: pieces[0]!.length,
      });

      const done = await finish({ upload_id, parts: pieces.length });
      expect(done.status).toBe(201);
      expect(done.body).toMatchObject({
        kind: 'video',
        mime: 'video/mp4',
        bytes: video.length,
        width: 640,
        height: 360,
        filename: 'clip.mp4',
        sha256: createHash('sha256').update(video).digest('hex'),
      });
      expect(done.body.duration_s).toBeCloseTo(2, 0);
      const listed = await call(server, 'GET', '/v1/assets?kind=video', { key });
      expect(listed.body.assets[0]).toMatchObject({
        id: done.body.id,
        duration_s: done.body.duration_s,
      });
      const served = await fetch(`${server.baseUrl}/v1/assets/${done.body.id}/content`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(Buffer.from(await served.arrayBuffer()).equals(video)).toBe(true);
      const thumb = await fetch(`${server.baseUrl}/v1/assets/${done.body.id}/thumbnail`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(thumb.status).toBe(200);
      const still = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
      expect(still).toMatchObject({ format: 'webp', width: 320, height: 180 });
      // The session is gone once finished.
      expect((await finish({ upload_id, parts: pieces.length })).status).toBe(404);
    });

    it('grants direct chunk uploads to the bucket with s3 storage, and finish works the same', async () => {
      const session = await init({ filename: 'direct.mp4', size_bytes: video.length });
      if (driver === 'fs') {
        expect(session.body.grant).toBeUndefined();
        return;
      }
      const { upload_id, part_bytes, grant } = session.body;
      const pieces = chunks(video, part_bytes);
      expect(grant.part_urls).toHaveLength(pieces.length);
      for (const [i, url] of grant.part_urls.entries()) {
        const res = await fetch(url, { method: 'PUT', body: new Uint8Array(pieces[i]!) });
        expect(res.status).toBe(200);
      }
      const done = await finish({ upload_id, parts: pieces.length });
      expect(done.status).toBe(201);
      expect(done.body).toMatchObject({
        kind: 'video',
        bytes: video.length,
        filename: 'direct.mp4',
      });
      const served = await fetch(`${server.baseUrl}/v1/assets/${done.body.id}/content`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(Buffer.from(await served.arrayBuffer()).equals(video)).toBe(true);
    });

    it('refuses a part larger than part_bytes with 413', async () => {
      const { body } = await init({ filename: 'a.mp4', size_bytes: 20 * 1024 * 1024 });
      const res = await part(body.upload_id, 0, Buffer.alloc(body.part_bytes + 1));
      expect(res.status).toBe(413);
      expect(res.body.detail).toBe(
        `A part holds at most part_bytes = ${body.part_bytes} (${body.part_bytes / 1024 ** 2} MB).`,
      );
    });

    it('refuses an oversized part sent without Content-Length into a new session, and stays up', async () => {
      // Streamed (chunked transfer): counted as it arrives, refused while the storage is still
      // making the session's folder. That once threw where nothing listened.
      const { body } = await init({ filename: 'v.mp4', size_bytes: 1 });
      const res = await fetch(
        `${server.baseUrl}/v1/assets/upload/part?upload_id=${encodeURIComponent(body.upload_id)}&index=0`,
        {
          method: 'PUT',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
          body: Readable.toWeb(Readable.from([Buffer.alloc(65_536)])) as ReadableStream,
          duplex: 'half',
        } as RequestInit,
      );
      expect(res.status).toBe(413);
      expect((await call(server, 'GET', '/readyz')).status).toBe(200);
    });

    it('checks parts against the chunks received and the announced size', async () => {
      const size = 2 * 8 * 1024 * 1024 + 10; // three chunks: 8 MiB, 8 MiB and 10 bytes
      const { body } = await init({ filename: 'a.mp4', size_bytes: size });
      expect(body.parts).toBe(3);
      await part(body.upload_id, 0, Buffer.alloc(10));
      await part(body.upload_id, 2, Buffer.alloc(10));
      const gap = await finish({ upload_id: body.upload_id, parts: 2 });
      expect(gap.status).toBe(422);
      expect(gap.body.detail[0].msg).toMatch(/gaps|received/);
      await part(body.upload_id, 1, Buffer.alloc(5));
      const short = await finish({ upload_id: body.upload_id, parts: 3 });
      expect(short.status).toBe(422);
      expect(short.body.detail[0].msg).toMatch(`25 bytes but init announced ${size}`);
    });

    it('bounds parts to 1-80 and size_bytes to 500 MB', async () => {
      const { body } = await init({ filename: 'a.mp4', size_bytes: 100 });
      expect((await finish({ upload_id: body.upload_id, parts: 81 })).status).toBe(422);
      expect((await finish({ upload_id: body.upload_id, parts: 0 })).status).toBe(422);
      expect((await part(body.upload_id, 80, Buffer.alloc(1))).status).toBe(422);
      expect((await part(body.upload_id, 0, Buffer.alloc(1))).status).toBe(200);
      const big = await init({ filename: 'big.mp4', size_bytes: 500 * 1024 * 1024 + 1 });
      expect(big.status).toBe(422);
      expect(big.body.detail[0]).toMatchObject({
        loc: ['body', 'size_bytes'],
        msg: expect.stringMatching(/^at most 500 MB \(524288000\)/),
      });
      expect((await init({ filename: 'big.mp4', size_bytes: 500 * 1024 * 1024 })).status).toBe(200);
    });

    it('refuses bytes that are not video at finish, storing no asset', async () => {
      const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
      const { body } = await init({ filename: 'fake.mp4', size_bytes: png.length });
      await part(body.upload_id, 0, png);
      const res = await finish({ upload_id: body.upload_id, parts: 1 });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].type).toBe('not_media');
    });

    it("answers 404 for another account's upload session", async () => {
      const { body } = await init({ filename: 'a.mp4', size_bytes: 10 });
      const other = await makeAccount(server.pool);
      const otherKey = await makeKey(server.pool, other.accountId, ['media']);
      expect((await part(body.upload_id, 0, Buffer.alloc(10), otherKey)).status).toBe(404);
      expect((await finish({ upload_id: body.upload_id, parts: 1 }, otherKey)).status).toBe(404);
    });

    it('cleans expired sessions and their parts', async () => {
      const { body } = await init({ filename: 'a.mp4', size_bytes: 10 });
      await part(body.upload_id, 0, Buffer.alloc(10));
      await server.pool.query(
        `update upload_sessions set expires_at = now() - interval '1 second' where id = $1`,
        [body.upload_id],
      );
      const removed = await cleanupExpiredUploads({ pool: server.pool, storage });
      expect(removed).toBeGreaterThanOrEqual(1);
      await expect(storage.get(`uploads/${body.upload_id}/0`)).rejects.toThrow();
      expect((await part(body.upload_id, 0, Buffer.alloc(10))).status).toBe(404);
    });
  });
  // Issue 14, finding 5: init with size_bytes 1, then 8 MiB at indexes 40 and 79, answered 200
  // and stored 17 MB outside the quota, and the expiry cleanup removed only index 0.
  describe('a session stores no more than init announced and reserved', () => {
    /** A fresh account with a media key, so its counters start at zero. */
    async function freshAccount() {
      const acct = await makeAccount(server.pool);
      return { acct, k: await makeKey(server.pool, acct.accountId, ['read', 'media']) };
    }
    const stored = async (uploadId: string, index: number) =>
      storage.size(`uploads/${uploadId}/${index}`);

    it('refuses an index past the chunks size_bytes makes (422) and stores nothing', async () => {
      const { acct, k } = await freshAccount();
      const { body } = await init({ filename: 'a.mp4', size_bytes: 1 }, k);
      expect(body).toMatchObject({ parts: 1 });
      for (const index of [40, 79]) {
        const res = await part(body.upload_id, index, Buffer.alloc(8 * MiB), k);
        expect(res.status).toBe(422);
        expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'index'] });
        expect(res.body.detail[0].msg).toMatch(/makes 1 chunk\(s\): index is 0-0/);
        expect(await stored(body.upload_id, index)).toBeUndefined();
      }
      expect(await storage.folders('uploads/')).not.toContain(body.upload_id);
      expect(await storageBalance(server.pool, acct.accountId)).toMatchObject({
        used: 0,
        reserved: 1,
        sessionBytes: 1,
      });
    });

    it('refuses a chunk larger than what remains of size_bytes (413); the last may be shorter', async () => {
      const { k } = await freshAccount();
      const { body } = await init({ filename: 'a.mp4', size_bytes: 8 * MiB + 10 }, k);
      expect(body).toMatchObject({ parts: 2, part_bytes: 8 * MiB });
      const over = await part(body.upload_id, 1, Buffer.alloc(11), k);
      expect(over.status).toBe(413);
      expect(over.body.detail).toMatch(/remaining 10 bytes/);
      expect(await stored(body.upload_id, 1)).toBeUndefined();
      expect((await part(body.upload_id, 1, Buffer.alloc(10), k)).status).toBe(200);
      expect((await part(body.upload_id, 0, Buffer.alloc(8 * MiB + 1), k)).status).toBe(413);
    });

    it('reserves size_bytes at init: beyond the quota is 413 and opens nothing; finish hands the reservation to the asset', async () => {
      const { acct, k } = await freshAccount();
      const quota = STORAGE_QUOTA_BYTES.plus;
      await insertAsset(server.pool, {
        accountId: acct.accountId,
        kind: 'image',
        mime: 'image/png',
        bytes: quota - video.length - 10,
      });
      const over = await init({ filename: 'big.mp4', size_bytes: video.length + 11 }, k);
      expect(over.status).toBe(413);
      expect(over.body).toMatchObject({
        code: 'quota_exceeded',
        detail: expect.stringMatching(/quota/),
      });
      expect((await storageBalance(server.pool, acct.accountId)).sessions).toBe(0);

      const session = await init({ filename: 'clip.mp4', size_bytes: video.length }, k);
      expect(session.status).toBe(200);
      // What is reserved is taken: another session, or a raw image, no longer fits.
      expect((await init({ filename: 'more.mp4', size_bytes: 11 }, k)).status).toBe(413);
      const image = await fetch(`${server.baseUrl}/v1/assets/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'image/png' },
        body: new Uint8Array(
          await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } })
            .png()
            .toBuffer(),
        ),
      });
      expect(image.status).toBe(413);
      expect(await storageBalance(server.pool, acct.accountId)).toMatchObject({
        used: quota - video.length - 10,
        reserved: video.length,
      });

      const { upload_id, part_bytes } = session.body;
      for (const [i, piece] of chunks(video, part_bytes).entries())
        expect((await part(upload_id, i, piece, k)).status).toBe(200);
      const done = await finish({ upload_id, parts: Math.ceil(video.length / part_bytes) }, k);
      expect(done.status).toBe(201);
      expect(await storageBalance(server.pool, acct.accountId)).toEqual({
        used: quota - 10,
        assetBytes: quota - 10,
        reserved: 0,
        sessionBytes: 0,
        sessions: 0,
      });
      // Finished sessions leave no chunks behind.
      expect(await storage.folders('uploads/')).not.toContain(upload_id);
    });

    it('when unfinished uploads fill the quota, the 413 says so, how they free it and when; the listing shows them', async () => {
      const { acct, k } = await freshAccount();
      // Twenty sessions of 500 MB opened and never finished.
      await insertUploadSession(
        server.pool,
        {
          accountId: acct.accountId,
          brandId: null,
          filename: 'never.mp4',
          sizeBytes: 20 * 500 * MiB,
          partBytes: 8 * MiB,
        },
        STORAGE_QUOTA_BYTES.plus,
      );
      const { rows } = await server.pool.query<{ at: Date }>(
        'select expires_at as at from upload_sessions where account_id = $1',
        [acct.accountId],
      );
      const uploads =
        'finish the unfinished chunked uploads (POST /v1/assets/upload/finish) or let them ' +
        `expire (a session expires a day after its upload/init, your first at ${rows[0]!.at.toISOString()}, ` +
        'and the cleanup at half past the hour after that gives its reservation back), then try again.';
      const over = await init({ filename: 'clip.mp4', size_bytes: 500 * MiB }, k);
      expect(over.status).toBe(413);
      expect(over.body.detail).toBe(
        'Storage quota of 10 GB would be exceeded by size_bytes 524288000 (500 MB) (0 bytes used, ' +
          `9.8 GB reserved by unfinished uploads); ${uploads}`,
      );
      const listed = await call(server, 'GET', '/v1/assets', { key: k });
      expect(listed.body.storage).toEqual({
        used_bytes: 0,
        reserved_bytes: 20 * 500 * MiB,
        quota_bytes: STORAGE_QUOTA_BYTES.plus,
      });

      // With assets stored too, deleting them is the other way.
      await insertAsset(server.pool, {
        accountId: acct.accountId,
        kind: 'image',
        mime: 'image/png',
        bytes: MiB,
      });
      const both = await init({ filename: 'clip.mp4', size_bytes: 500 * MiB }, k);
      expect(both.body.detail).toBe(
        'Storage quota of 10 GB would be exceeded by size_bytes 524288000 (500 MB) (1 MB used, ' +
          `9.8 GB reserved by unfinished uploads); delete assets, or ${uploads}`,
      );
    });

    it('cleans every chunk of an expired session, whatever its index, and gives its reservation back', async () => {
      const { acct, k } = await freshAccount();
      const { body } = await init({ filename: 'a.mp4', size_bytes: 2 * 8 * MiB + 10 }, k);
      for (const i of [0, 2]) await part(body.upload_id, i, Buffer.alloc(10), k);
      // Chunks no upload_parts row names: one stored past the part count (as before this
      // fix) and a left-over temporary file, and a folder an older version leaked outright.
      await storage.put(`uploads/${body.upload_id}/40`, Readable.from([Buffer.alloc(10)]));
      await storage.put(
        `uploads/${body.upload_id}/1.a1b2c3.part`,
        Readable.from([Buffer.alloc(10)]),
      );
      const leaked = randomUUID();
      await storage.put(`uploads/${leaked}/79`, Readable.from([Buffer.alloc(10)]));
      // A session still open keeps its chunks.
      const open = await init({ filename: 'b.mp4', size_bytes: 10 }, k);
      await part(open.body.upload_id, 0, Buffer.alloc(10), k);
      await server.pool.query(
        `update upload_sessions set expires_at = now() - interval '1 second' where id = $1`,
        [body.upload_id],
      );
      expect(await storageBalance(server.pool, acct.accountId)).toMatchObject({
        reserved: 2 * 8 * MiB + 20,
      });

      expect(await cleanupExpiredUploads({ pool: server.pool, storage })).toBeGreaterThanOrEqual(1);
      for (const index of [0, 2, 40]) expect(await stored(body.upload_id, index)).toBeUndefined();
      expect(await storage.size(`uploads/${leaked}/79`)).toBeUndefined();
      const folders = await storage.folders('uploads/');
      expect(folders).not.toContain(body.upload_id);
      expect(folders).not.toContain(leaked);
      expect(await stored(open.body.upload_id, 0)).toBe(10);
      expect(await storageBalance(server.pool, acct.accountId)).toMatchObject({
        used: 0,
        reserved: 10,
        sessionBytes: 10,
        sessions: 1,
      });
    });

    it('presigns each direct chunk address for exactly its chunk size (s3)', async () => {
      const { k } = await freshAccount();
      const { body } = await init({ filename: 'a.mp4', size_bytes: 8 * MiB + 10 }, k);
      if (driver === 'fs') {
        expect(body.grant).toBeUndefined();
        return;
      }
      const [first, last] = body.grant.part_urls as string[];
      // What S3 checks: the signature covers Content-Length, so any other size is refused.
      expect(presignedAccepts(first!, { 'content-length': String(8 * MiB) })).toBe(true);
      expect(presignedAccepts(first!, { 'content-length': String(8 * MiB + 1) })).toBe(false);
      expect(presignedAccepts(last!, { 'content-length': '10' })).toBe(true);
      expect(presignedAccepts(last!, { 'content-length': String(8 * MiB) })).toBe(false);
    });
  });
});
