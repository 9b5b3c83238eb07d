// A full disk: the API's DATA_DIR on a small tmpfs of the test's own,
// filled until the kernel answers ENOSPC. Uploads then answer 507 storage_full with the
// reason, keep nothing and charge nothing; /readyz names the storage; freeing the room makes
// both work again.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../support/engagement.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { noisePng } from '../support/noiseImage.ts';
import {
  call,
  makeAccount,
  makeKey,
  startServer,
  type TestAccount,
  type TestServer,
} from '../support/server.ts';
import { mountSmallDisk, type SmallDisk } from '../support/smallDisk.ts';

let disk: SmallDisk;
let server: TestServer;
let acct: TestAccount;
let key: string;

beforeAll(async () => {
  disk = mountSmallDisk(8);
  server = await startServer({ env: { DATA_DIR: disk.dir } });
  acct = await makeAccount(server.pool);
  key = await makeKey(server.pool, acct.accountId, ['read', 'media']);
});
afterAll(async () => {
  await server?.close();
  disk?.remove();
});

const upload = (png: Buffer) =>
  fetch(`${server.baseUrl}/v1/assets/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' },
    body: new Uint8Array(png),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

/** Every file under DATA_DIR but the filler, relative to it. */
function filesOnDisk(dir = disk.dir): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name !== 'filler')
    .map((e) => path.relative(disk.dir, path.join(e.parentPath, e.name)))
    .sort();
}

const library = async () => {
  const res = await call(server, 'GET', '/v1/assets', { key });
  return {
    ids: res.body.assets.map((a: { id: string }) => a.id),
    used: res.body.storage.used_bytes,
  };
};

describe('an upload on a full disk', () => {
  it('answers 507 storage_full with the reason, keeps nothing, charges nothing, and /readyz names the storage', async () => {
    expect((await call(server, 'GET', '/readyz')).status).toBe(200);
    const first = await upload(await noisePng(64, 64));
    expect(first.status).toBe(201);
    const before = await library();
    const stored = filesOnDisk();

    await disk.fill();
    // Full before any upload fails: the volume has no room left.
    const ready = await call(server, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ code: 'not_ready', reason: 'storage_full' });
    expect(ready.body.detail).toMatch(/^storage full/);

    const refused = await upload(await noisePng(200, 200));
    expect(refused.status).toBe(507);
    expect(refused.body).toEqual({
      code: 'storage_full',
      detail: expect.stringMatching(/disk is full/),
    });
    expect(await library()).toEqual(before);
    expect(filesOnDisk()).toEqual(stored);

    // A chunk of a chunked upload is refused the same way, nothing of it kept.
    const init = await call(server, 'POST', '/v1/assets/upload/init', {
      key,
      body: { filename: 'clip.mp4', size_bytes: 300_000 },
    });
    expect(init.body.upload_id).toBeTruthy();
    const part = await fetch(
      `${server.baseUrl}/v1/assets/upload/part?upload_id=${init.body.upload_id}&index=0`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(300_000),
      },
    );
    expect(part.status).toBe(507);
    expect(((await part.json()) as { code: string }).code).toBe('storage_full');
    expect(filesOnDisk()).toEqual(stored);

    // MCP's upload_asset says the same, its code first.
    const client = await connectMcp(server, key);
    try {
      const answer = await callTool(client, 'upload_asset', {
        data_base64: (await noisePng(200, 200)).toString('base64'),
      });
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/^storage_full: The server's disk is full/);
    } finally {
      await client.close();
    }
    expect(await library()).toEqual(before);
    expect(filesOnDisk()).toEqual(stored);
    expect((await call(server, 'GET', '/readyz')).body.reason).toBe('storage_full');

    // Room again: the next upload is stored, and readiness comes back with it.
    await disk.free();
    const again = await upload(await noisePng(200, 200));
    expect(again.status).toBe(201);
    expect((await library()).ids).toEqual([again.body.id, ...before.ids]);
    expect(await call(server, 'GET', '/readyz')).toMatchObject({ status: 200 });
  });
});
