// Rendered pages are assets like any other (issue 14, finding 6): a render counts their bytes
// against the storage quota and a re-render gives back exactly what it counted, so deleting a
// page never breaks the counter; a page belongs to its design, so it is refused as another
// post's attachment, and a re-render never takes away a page that a post still shows.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAsset } from '../../core/assets/db.ts';
import { STORAGE_QUOTA_BYTES } from '../../core/kernel/plans.ts';
import { useDesignService } from '../support/designService.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import type { TestServer } from '../support/service.ts';
import { storageBalance } from '../support/storageCounter.ts';
import { uploadPng } from '../support/uploads.ts';

const svc = useDesignService();
let server: TestServer;
const clients: Client[] = [];
beforeAll(() => ({ server } = svc));
afterAll(async () => {
  for (const c of clients) await c.close();
});

/** A fresh account (its counter at zero) with a key that may post and upload. */
async function freshAccount() {
  const acct = await makeAccount(server.pool);
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish', 'media']);
  const create = (body: Record<string, unknown>) =>
    call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'bluesky', body: 'Caption', brand_id: acct.brandId, ...body },
    });
  const patch = (postId: string, body: Record<string, unknown>) =>
    call(server, 'PATCH', `/v1/posts/${postId}/design`, { key, body });
  const balance = () => storageBalance(server.pool, acct.accountId);
  return { acct, key, create, patch, balance };
}

const headline = (text: string) => ({
  canvas: { aspect: 'square', bg: '#ffffff' },
  layers: [
    { kind: 'shape', shape: 'rect', x: 0, y: 0, w: 1080, h: 200, fill: '#e4572e', cid: 'band' },
    { kind: 'text', text, x: 80, y: 300, w: 900, size: 90, cid: 'title' },
  ],
});

/** The bytes of the design's current pages, as stored. */
async function pageBytes(designId: string): Promise<number> {
  const { rows } = await server.pool.query(
    'select coalesce(sum(bytes), 0) as n from assets where design_id = $1',
    [designId],
  );
  return Number(rows[0].n);
}

const attachments = async (postId: string) =>
  (
    await server.pool.query(
      `select array(select asset_id::text from post_assets where post_id = $1 order by position)
         as ids`,
      [postId],
    )
  ).rows[0].ids as string[];

describe('rendered pages count against storage', () => {
  it('deleting a rendered page on a fresh account answers 204 and leaves the counter right', async () => {
    const { key, create, balance } = await freshAccount();
    const made = await create({ layout: headline('Fresh') });
    expect(made.status).toBe(201);
    expect(made.body.render_error).toBeNull();
    const counted = await balance();
    expect(counted.used).toBeGreaterThan(0);
    expect(counted.used).toBe(counted.assetBytes);

    const res = await call(server, 'DELETE', `/v1/assets/${made.body.asset_ids[0]}`, { key });
    expect(res.status).toBe(204);
    expect(await balance()).toMatchObject({ used: 0, assetBytes: 0 });
  });

  it('a re-render gives back exactly what the last render counted', async () => {
    const { key, create, patch, balance } = await freshAccount();
    await uploadPng(server, key, { width: 64, height: 64 }, '#336699');
    const photo = (await balance()).used;
    const made = await create({ layout: headline('One') });
    const designId = made.body.design_id;
    expect((await balance()).used).toBe(photo + (await pageBytes(designId)));

    const page = { layers: [{ kind: 'text', text: 'Page', x: 80, y: 80, w: 900, size: 60 }] };
    for (const layout of [
      headline('Two, with a longer headline than before'),
      { pages: [page, page, page] },
      headline('Back to one page'),
      undefined, // the same layout rendered again
    ]) {
      const res = await patch(made.body.id, layout ? { layout } : {});
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.render_error).toBeNull();
      const now = await balance();
      expect(now.used).toBe(photo + (await pageBytes(designId)));
      expect(now.used).toBe(now.assetBytes);
    }
  });

  it('a render beyond the quota fails with a render_error naming the quota, keeping nothing', async () => {
    const { acct, create, patch, balance, key } = await freshAccount();
    const filler = await insertAsset(server.pool, {
      accountId: acct.accountId,
      kind: 'image',
      mime: 'image/png',
      bytes: STORAGE_QUOTA_BYTES.plus - 100,
    });
    const made = await create({ layout: headline('Too much') });
    expect(made.status).toBe(201);
    expect(made.body.asset_ids).toEqual([]);
    expect(made.body.render_error).toMatch(
      /take \d+(\.\d)? KB, and the storage quota of 10 GB would be exceeded/,
    );
    expect(made.body.render_error).toMatch(/delete assets, then render again/);
    expect(await pageBytes(made.body.design_id)).toBe(0);
    expect(await balance()).toMatchObject({ used: STORAGE_QUOTA_BYTES.plus - 100 });
    // The rendered files went with the refusal.
    const renders = path.join(server.dataDir, 'media', 'renders', acct.accountId);
    expect(await readdir(renders).catch(() => [])).toEqual([]);

    // Room made, the same design renders.
    expect((await call(server, 'DELETE', `/v1/assets/${filler.id}`, { key })).status).toBe(204);
    const again = await patch(made.body.id, {});
    expect(again.body.render_error).toBeNull();
    const now = await balance();
    expect(now.used).toBe(await pageBytes(made.body.design_id));
    expect(now.used).toBe(now.assetBytes);
  });
});

describe('a rendered page belongs to its design', () => {
  async function mcp(key: string) {
    const c = await connectMcp(server, key, 'page-storage-test');
    clients.push(c);
    return c;
  }

  it('is refused as another post’s attachment (422 naming it and design_id), through POST /v1/posts and update_post', async () => {
    const { acct, key, create } = await freshAccount();
    const made = await create({ layout: headline('Mine') });
    const pageId = made.body.asset_ids[0];
    const posts = async () =>
      (
        await server.pool.query('select count(*)::int as n from posts where account_id = $1', [
          acct.accountId,
        ])
      ).rows[0].n;
    const before = await posts();

    const res = await create({ body: 'Borrowing the page', asset_ids: [pageId] });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ['body', 'asset_ids', 0],
      type: 'design_page',
    });
    expect(res.body.detail[0].msg).toContain(`asset ${pageId}`);
    expect(res.body.detail[0].msg).toContain(`"design_id": "${made.body.design_id}"`);
    expect(await posts()).toBe(before);

    const plain = await create({ body: 'A plain post' });
    const client = await mcp(key);
    const update = (await client.callTool({
      name: 'update_post',
      arguments: { post_id: plain.body.id, asset_ids: [pageId] },
    })) as { isError?: boolean; content: { text?: string }[] };
    expect(update.isError).toBe(true);
    expect(update.content[0]!.text).toContain('design_id');
    expect(await attachments(plain.body.id)).toEqual([]);

    // The design's own post may list its own pages.
    const own = (await client.callTool({
      name: 'update_post',
      arguments: { post_id: made.body.id, asset_ids: [pageId] },
    })) as { isError?: boolean };
    expect(own.isError).toBeFalsy();
  });

  it('a re-render keeps a page another post still shows: that scheduled post keeps its media', async () => {
    const { key, create, patch, balance } = await freshAccount();
    const made = await create({ layout: headline('Version one') });
    const pageId = made.body.asset_ids[0];
    const other = await create({
      body: 'Scheduled with the page',
      schedule_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(other.status).toBe(201);
    // Attached before pages were refused in asset_ids (the service no longer makes this).
    await server.pool.query(
      'insert into post_assets (post_id, position, asset_id) values ($1, 0, $2)',
      [other.body.id, pageId],
    );

    const res = await patch(made.body.id, { layout: headline('Version two') });
    expect(res.status).toBe(200);
    expect(res.body.render_error).toBeNull();
    expect(await attachments(made.body.id)).not.toContain(pageId);
    expect(await attachments(other.body.id)).toEqual([pageId]);
    const kept = await fetch(`${server.baseUrl}/v1/assets/${pageId}/content`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(kept.status).toBe(200);
    // Kept as a library image, still counted once.
    const now = await balance();
    expect(now.used).toBe(now.assetBytes);
  });
});
