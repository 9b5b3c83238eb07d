// A drawing as a file, through the MCP SDK's client against a listening server with a render
// worker: export_drawing (a PNG shown after the answer, an SVG as text, each at a signed
// address), save_drawing_to_library (a PNG asset with the title as alt text, counted against
// storage, saved once a version) and attach_drawing_to_post (refused for published posts and
// platforms without images); another account's drawing not found by any of them.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropOldExports, exportKey } from '../../core/drawings/files.ts';
import { renderDrawingJob } from '../../core/drawings/renderJob.ts';
import { STORAGE_QUOTA_BYTES } from '../../core/kernel/plans.ts';
import type { RenderPool } from '../../render/renderPool.ts';
import { reconcile } from '../../workers/reconcile.ts';
import { useDesignService } from '../support/designService.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import type { TestAccount, TestServer } from '../support/service.ts';
import { uploadPng } from '../support/uploads.ts';

const svc = useDesignService();
let server: TestServer, acct: TestAccount, key: string, client: Client;
const clients: Client[] = [];
beforeAll(async () => {
  ({ server, acct, key } = svc);
  client = await connectMcp(server, key, 'drawing-files-test');
  clients.push(client);
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

type Content = { type: string; text?: string; data?: string; mimeType?: string };
type Reply = { isError?: boolean; text: string; data: any; content: Content[] };
async function tool(name: string, args: Record<string, unknown>, c = client): Promise<Reply> {
  const res = (await c.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: Content[];
    structuredContent?: unknown;
  };
  return {
    isError: res.isError,
    text: res.content[0]?.text ?? '',
    data: res.structuredContent,
    content: res.content.slice(1),
  };
}

/** A 200 × 100 white drawing with one thick red horizontal stroke along y = 50. */
async function redLine(title = 'Underline') {
  const made = await tool('create_drawing', {
    brand_id: acct.brandId,
    title,
    width: 200,
    height: 100,
    background: '#ffffff',
    strokes: [
      {
        points: [
          [20, 50],
          [180, 50],
        ],
        color: '#ff0000',
        size: 16,
        thinning: 0,
      },
    ],
  });
  expect(made.isError, made.text).toBeFalsy();
  return made.data as { id: string; version: number };
}

/** A signed address, on the test server (PUBLIC_BASE_URL names another port). */
const local = (address: string) => {
  const url = new URL(address);
  return `${server.baseUrl}${url.pathname}${url.search}`;
};

async function pixel(png: Buffer, x: number, y: number) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * 4;
  return [data[i], data[i + 1], data[i + 2], data[i + 3]];
}

const jobsOf = async (kind: string) =>
  (
    await server.pool.query('select id from jobs where account_id = $1 and kind = $2', [
      acct.accountId,
      kind,
    ])
  ).rowCount;

describe('export_drawing', () => {
  it('answers a PNG with the strokes where the points put them, and its signed address', async () => {
    const { id } = await redLine();
    const out = await tool('export_drawing', { drawing_id: id });
    expect(out.isError, out.text).toBeFalsy();
    expect(out.data).toMatchObject({
      drawing_id: id,
      version: 1,
      format: 'png',
      mime: 'image/png',
      width: 200,
      height: 100,
      inline: 'file',
    });
    expect(out.content).toEqual([
      expect.objectContaining({ type: 'image', mimeType: 'image/png' }),
    ]);
    const png = Buffer.from(out.content[0]!.data!, 'base64');
    expect(out.data.bytes).toBe(png.length);
    expect(await pixel(png, 100, 50)).toEqual([255, 0, 0, 255]);
    expect(await pixel(png, 100, 20)).toEqual([255, 255, 255, 255]);
    expect(await pixel(png, 5, 50)).toEqual([255, 255, 255, 255]);

    // The signed address serves the same bytes, without a credential; a changed one does not.
    const fetched = await fetch(local(out.data.signed_url));
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(png)).toBe(true);
    const forged = local(out.data.signed_url).replace(/sig=./, (m: string) =>
      m.endsWith('A') ? 'sig=B' : 'sig=A',
    );
    expect((await fetch(forged)).status).toBe(404);
    // job_status reads the export's job.
    const job = await tool('job_status', { job_id: out.data.job_id });
    expect(job.data).toMatchObject({ kind: 'drawing_export', status: 'succeeded' });
  });

  it('scales, leaves the background out, and answers the same export when asked again', async () => {
    const { id } = await redLine('Scaled');
    const out = await tool('export_drawing', { drawing_id: id, scale: 2, transparent: true });
    expect(out.isError, out.text).toBeFalsy();
    expect(out.data).toMatchObject({ width: 400, height: 200 });
    const png = Buffer.from(out.content[0]!.data!, 'base64');
    expect((await sharp(png).metadata()).width).toBe(400);
    expect(await pixel(png, 200, 100)).toEqual([255, 0, 0, 255]);
    expect((await pixel(png, 200, 20))[3]).toBe(0);

    const before = await jobsOf('drawing_export');
    const again = await tool('export_drawing', { drawing_id: id, scale: 2, transparent: true });
    expect(again.data.bytes).toBe(out.data.bytes);
    expect(await jobsOf('drawing_export')).toBe(before);
    expect(new URL(again.data.signed_url).pathname).toBe(new URL(out.data.signed_url).pathname);
  });

  it('answers an SVG as text with the same geometry, served sandboxed at its address', async () => {
    const { id } = await redLine('Vector');
    const out = await tool('export_drawing', { drawing_id: id, format: 'svg' });
    expect(out.isError, out.text).toBeFalsy();
    expect(out.data).toMatchObject({ format: 'svg', mime: 'image/svg+xml', inline: 'file' });
    expect(out.content).toHaveLength(1);
    const svg = out.content[0]!;
    expect(svg.type).toBe('text');
    expect(svg.text).toMatch(/^<svg [^>]*width="200" height="100"/);
    const raster = await sharp(Buffer.from(svg.text!)).png().toBuffer();
    expect(await pixel(raster, 100, 50)).toEqual([255, 0, 0, 255]);
    expect(await pixel(raster, 100, 20)).toEqual([255, 255, 255, 255]);

    const fetched = await fetch(local(out.data.signed_url));
    expect(fetched.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(fetched.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(await fetched.text()).toBe(svg.text);
  });

  it('answers a file too large for the 40 KB result at its signed address only, PNG and SVG', async () => {
    // 400 strokes of 40 random points in random colours: a PNG and an SVG of hundreds of KB.
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const strokes = Array.from({ length: 400 }, () => ({
      points: Array.from({ length: 40 }, () => [
        Math.round(random() * 1000),
        Math.round(random() * 1000),
      ]),
      color: `#${Math.floor(random() * 0xffffff)
        .toString(16)
        .padStart(6, '0')}`,
      size: 2 + Math.round(random() * 10),
    }));
    const made = await tool('create_drawing', {
      brand_id: acct.brandId,
      title: 'Scribbles',
      width: 1000,
      height: 1000,
      background: '#ffffff',
      strokes,
    });
    expect(made.isError, made.text).toBeFalsy();
    for (const format of ['png', 'svg'] as const) {
      const res = await client.callTool({
        name: 'export_drawing',
        arguments: { drawing_id: made.data.id, format },
      });
      expect(res.isError, JSON.stringify(res.content).slice(0, 300)).toBeFalsy();
      const answer = res.structuredContent as { bytes: number; inline: string; signed_url: string };
      expect(answer.bytes).toBeGreaterThan(100 * 1024);
      // The whole result as sent: JSON text, structuredContent and nothing after them.
      expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThanOrEqual(40 * 1024);
      expect(answer.inline).toBe('none');
      expect(res.content).toHaveLength(1);
      const fetched = await fetch(local(answer.signed_url));
      expect(fetched.status).toBe(200);
      const file = Buffer.from(await fetched.arrayBuffer());
      expect(file.length).toBe(answer.bytes);
      if (format === 'png') expect((await sharp(file).metadata()).width).toBe(1000);
      else expect(file.toString('utf8')).toMatch(/^<svg [^>]*width="1000"/);
    }
  }, 120_000);

  it('shows a later version once updated, not the earlier export', async () => {
    const { id } = await redLine('Changing');
    const first = await tool('export_drawing', { drawing_id: id });
    await tool('update_drawing', {
      drawing_id: id,
      expected_version: 1,
      background: '#000000',
    });
    const second = await tool('export_drawing', { drawing_id: id });
    expect(second.data.version).toBe(2);
    const png = Buffer.from(second.content[0]!.data!, 'base64');
    expect(await pixel(png, 100, 20)).toEqual([0, 0, 0, 255]);
    expect(second.data.signed_url).not.toBe(first.data.signed_url);
  });

  it('refuses a PNG over 4096 × 4096 pixels before queueing anything, naming the largest scale', async () => {
    const made = await tool('create_drawing', {
      brand_id: acct.brandId,
      title: 'Wide',
      width: 2000,
      height: 2000,
      background: 'transparent',
      strokes: [],
    });
    const before = await jobsOf('drawing_export');
    const out = await tool('export_drawing', { drawing_id: made.data.id, scale: 3 });
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/6000 × 6000 pixels.*largest scale for it is 2\.04/);
    expect(await jobsOf('drawing_export')).toBe(before);
    // An SVG has no pixels to bound.
    const svg = await tool('export_drawing', { drawing_id: made.data.id, scale: 3, format: 'svg' });
    expect(svg.isError, svg.text).toBeFalsy();
    expect(svg.data).toMatchObject({ width: 6000, height: 6000 });
  });

  it('refuses a scale outside 0.25-4 and unknown keys', async () => {
    const { id } = await redLine('Bounds');
    // Arguments outside the schema are the protocol's invalid params, before anything runs.
    for (const args of [{ scale: 0.2 }, { scale: 4.5 }, { format: 'jpeg' }, { dpi: 300 }])
      await expect(tool('export_drawing', { drawing_id: id, ...args })).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
      });
  });
});

describe('export files', () => {
  it("keep an account's 8 newest; an older one's address then answers 404", async () => {
    const { id } = await redLine('Many');
    const first = await tool('export_drawing', { drawing_id: id, scale: 0.25 });
    expect((await fetch(local(first.data.signed_url))).status).toBe(200);
    for (let i = 1; i <= 8; i++) {
      const out = await tool('export_drawing', { drawing_id: id, scale: 0.25 + i / 100 });
      expect(out.isError, out.text).toBeFalsy();
    }
    // The worker lets the oldest go just after answering the newest.
    await expect
      .poll(async () => jobsOf('drawing_export'), { timeout: 5_000, interval: 50 })
      .toBe(8);
    expect((await fetch(local(first.data.signed_url))).status).toBe(404);
  });

  it('are deleted with their job an hour after they were drawn', async () => {
    const { id } = await redLine('Hourly');
    const out = await tool('export_drawing', { drawing_id: id, format: 'svg', scale: 3.5 });
    const jobId = new URL(out.data.signed_url).pathname.split('/').pop()!;
    const key = exportKey(acct.accountId, jobId, 'drawing', 'svg');
    expect(await svc.storage.size(key)).toBeGreaterThan(0);
    await server.pool.query(
      `update jobs set finished_at = now() - interval '61 minutes' where id = $1`,
      [jobId],
    );
    expect(await dropOldExports({ pool: server.pool, storage: svc.storage }, { hours: 1 })).toBe(1);
    expect(await svc.storage.size(key)).toBeUndefined();
    expect((await fetch(local(out.data.signed_url))).status).toBe(404);
    // Asked again, it is drawn again.
    const again = await tool('export_drawing', { drawing_id: id, format: 'svg', scale: 3.5 });
    expect(again.isError, again.text).toBeFalsy();
    expect((await fetch(local(again.data.signed_url))).status).toBe(200);
  });

  it('are deleted by the reconciler, which the worker runs every minute', async () => {
    const { id } = await redLine('Swept');
    const out = await tool('export_drawing', { drawing_id: id, format: 'svg', scale: 1.5 });
    await server.pool.query(
      `update jobs set finished_at = now() - interval '2 hours' where id = $1`,
      [out.data.job_id],
    );
    const helpers = { logger: { warn: () => {}, info: () => {} } } as never;
    await reconcile({ pool: server.pool, storage: svc.storage })({}, helpers);
    const key = exportKey(acct.accountId, out.data.job_id, 'drawing', 'svg');
    expect(await svc.storage.size(key)).toBeUndefined();
    expect(await jobsOf('drawing_export')).toBeGreaterThan(0);
    const gone = await server.pool.query('select 1 from jobs where id = $1', [out.data.job_id]);
    expect(gone.rowCount).toBe(0);
  });

  it('answered again late in their hour, give an address that expires with the file', async () => {
    const { id } = await redLine('Late');
    const out = await tool('export_drawing', { drawing_id: id, scale: 0.5 });
    await server.pool.query(
      `update jobs set finished_at = now() - interval '59 minutes' where id = $1`,
      [out.data.job_id],
    );
    const again = await tool('export_drawing', { drawing_id: id, scale: 0.5 });
    expect(again.data.job_id).toBe(out.data.job_id);
    const left = Date.parse(again.data.expires_at) - Date.now();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(61_000);
    expect(Number(new URL(again.data.signed_url).searchParams.get('expires')) * 1000).toBe(
      Date.parse(again.data.expires_at),
    );
  });
});

describe('save_drawing_to_library', () => {
  it('saves a PNG asset with the title as alt text, counted against storage, once a version', async () => {
    const { id } = await redLine('Signature');
    const used = async () =>
      Number(
        (
          await server.pool.query('select storage_used_bytes from accounts where id = $1', [
            acct.accountId,
          ])
        ).rows[0].storage_used_bytes,
      );
    const before = await used();
    const saved = await tool('save_drawing_to_library', { drawing_id: id });
    expect(saved.isError, saved.text).toBeFalsy();
    expect(saved.data).toMatchObject({
      alt_text: 'Signature',
      width: 200,
      height: 100,
      reused: false,
    });
    expect(await used()).toBe(before + saved.data.bytes);

    const listed = await call(server, 'GET', '/v1/assets', { key });
    const asset = listed.body.assets.find((a: { id: string }) => a.id === saved.data.asset_id);
    expect(asset).toMatchObject({ kind: 'image', mime: 'image/png', alt_text: 'Signature' });
    const bytes = await fetch(local(saved.data.signed_url));
    expect(await pixel(Buffer.from(await bytes.arrayBuffer()), 100, 50)).toEqual([255, 0, 0, 255]);

    const again = await tool('save_drawing_to_library', { drawing_id: id });
    expect(again.data).toMatchObject({ asset_id: saved.data.asset_id, reused: true });
    expect(await used()).toBe(before + saved.data.bytes);

    // Deleted from the library, it is drawn and saved again.
    expect(
      (await call(server, 'DELETE', `/v1/assets/${saved.data.asset_id}`, { key })).status,
    ).toBe(204);
    const third = await tool('save_drawing_to_library', { drawing_id: id });
    expect(third.data.reused).toBe(false);
    expect(third.data.asset_id).not.toBe(saved.data.asset_id);
  });

  it('refuses over the storage quota and stores nothing', async () => {
    const other = await makeAccount(server.pool);
    const otherKey = await makeKey(server.pool, other.accountId, ['read', 'media']);
    const c = await connectMcp(server, otherKey, 'drawing-quota');
    clients.push(c);
    const made = await tool(
      'create_drawing',
      { brand_id: other.brandId, title: 'Full', width: 100, height: 100, background: '#ffffff' },
      c,
    );
    await server.pool.query('update accounts set storage_used_bytes = $2 where id = $1', [
      other.accountId,
      STORAGE_QUOTA_BYTES.plus - 10,
    ]);
    const saved = await tool('save_drawing_to_library', { drawing_id: made.data.id }, c);
    expect(saved.isError).toBe(true);
    expect(saved.text).toMatch(/drawing_failed: .*exceed the storage quota/);
    const assets = await server.pool.query('select 1 from assets where account_id = $1', [
      other.accountId,
    ]);
    expect(assets.rowCount).toBe(0);

    // With the quota used up, nothing is drawn: refused at once, as an upload would be.
    await server.pool.query('update accounts set storage_used_bytes = $2 where id = $1', [
      other.accountId,
      STORAGE_QUOTA_BYTES.plus,
    ]);
    const drawn = await server.pool.query(
      `select count(*)::int as n from jobs where account_id = $1 and kind = 'drawing_save'`,
      [other.accountId],
    );
    const full = await tool('save_drawing_to_library', { drawing_id: made.data.id, scale: 2 }, c);
    expect(full.text).toMatch(
      /^quota_exceeded: The storage quota of 10 GB is used up \(10 GB used/,
    );
    const after = await server.pool.query(
      `select count(*)::int as n from jobs where account_id = $1 and kind = 'drawing_save'`,
      [other.accountId],
    );
    expect(after.rows[0].n).toBe(drawn.rows[0].n);
  });
});

describe('attach_drawing_to_post', () => {
  const newPost = async (platform: string, assetIds: string[] = []) => {
    const made = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform, body: 'With a sketch', brand_id: acct.brandId, asset_ids: assetIds },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.id as string;
  };

  it('attaches the drawing as an image at the end of an unpublished post', async () => {
    const { id } = await redLine('Arrow');
    const postId = await newPost('bluesky');
    const out = await tool('attach_drawing_to_post', { drawing_id: id, post_id: postId });
    expect(out.isError, out.text).toBeFalsy();
    expect(out.data.post).toMatchObject({
      id: postId,
      kind: 'image',
      status: 'draft',
      asset_ids: [out.data.image.asset_id],
    });
    const got = await tool('get_post', { post_id: postId });
    expect(got.data.post.asset_ids).toEqual([out.data.image.asset_id]);
    // Attached again: the same image, not a second one.
    const again = await tool('attach_drawing_to_post', { drawing_id: id, post_id: postId });
    expect(again.data.post.asset_ids).toEqual([out.data.image.asset_id]);
  });

  it('attaches two drawings at once to one post without losing either', async () => {
    const [a, b] = [await redLine('Left'), await redLine('Right')];
    const postId = await newPost('mastodon');
    const both = await Promise.all(
      [a, b].map((d) => tool('attach_drawing_to_post', { drawing_id: d.id, post_id: postId })),
    );
    for (const out of both) expect(out.isError, out.text).toBeFalsy();
    const got = await tool('get_post', { post_id: postId });
    expect([...got.data.post.asset_ids].sort()).toEqual(
      both.map((o) => o.data.image.asset_id).sort(),
    );
  });

  it('refuses a published post and a post that can take no more images, drawing nothing', async () => {
    const { id } = await redLine('Refused');
    const published = await newPost('bluesky');
    await server.pool.query(
      `update posts set status = 'published', external_post_id = '1' where id = $1`,
      [published],
    );
    const before = await jobsOf('drawing_save');
    const out = await tool('attach_drawing_to_post', { drawing_id: id, post_id: published });
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/^invalid_status: Cannot attach media to a published post/);

    const images = [];
    for (const colour of ['#ff0000', '#00ff00', '#0000ff', '#000000'])
      images.push(await uploadPng(server, key, { width: 8, height: 8 }, colour));
    const full = await newPost('bluesky', images);
    const fifth = await tool('attach_drawing_to_post', { drawing_id: id, post_id: full });
    expect(fifth.isError).toBe(true);
    expect(fifth.text).toMatch(
      /^validation_failed: post_id: post \d+ cannot take one more image: it has 4 attachment\(s\), and a bluesky post carries at most 4 image\(s\)/,
    );
    expect((await tool('get_post', { post_id: full })).data.post.asset_ids).toEqual(images);
    expect(await jobsOf('drawing_save')).toBe(before);
  });
});

describe('the drawing render job', () => {
  it('draws nothing of a version that changed while it waited, and says to ask again', async () => {
    const { id } = await redLine('Moved on');
    const deps = { pool: server.pool, storage: svc.storage, renderer: {} as RenderPool };
    const job = {
      job_id: '1',
      account_id: acct.accountId,
      drawing_id: id,
      version: 2,
      format: 'png' as const,
      scale: 1,
      transparent: false,
      target: 'export' as const,
    };
    await expect(renderDrawingJob(deps, job, async () => {})).rejects.toThrow(
      /changed while waiting \(version 1 now, 2 asked for\); ask again/,
    );
  });
});

describe("another account's drawing", () => {
  it('is not found by export, save or attach', async () => {
    const { id } = await redLine('Mine');
    const postId = (
      await call(server, 'POST', '/v1/posts', {
        key,
        body: { platform: 'bluesky', body: 'x', brand_id: acct.brandId },
      })
    ).body.id;
    const other = await makeAccount(server.pool);
    const c = await connectMcp(
      server,
      await makeKey(server.pool, other.accountId, ['read', 'publish', 'media']),
      'drawing-other',
    );
    clients.push(c);
    for (const [name, args] of [
      ['export_drawing', { drawing_id: id }],
      ['save_drawing_to_library', { drawing_id: id }],
      ['attach_drawing_to_post', { drawing_id: id, post_id: postId }],
    ] as const) {
      const out = await tool(name, args, c);
      expect(out.isError, name).toBe(true);
      expect(out.text, name).toMatch(/^not_found: /);
    }
  });
});
