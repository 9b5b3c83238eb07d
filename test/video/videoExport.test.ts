// Exporting a video design through MCP with the SDK's client and a real worker: export_video
// answers a job at once, job_status with wait_s follows it to `succeeded`, and the asset is
// an H.264/AAC MP4 of the design's size and duration. Some video designs are stored directly
// with storeDesign (parsed by the layout's schema), others made through use_video_template;
// preview_design draws poster frames of them.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoLayoutInput } from '../../core/designs/schema.ts';
import { storeDesign } from '../../core/designs/service.ts';
import { mediaTools } from '../../core/media/tools.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { makeTestClip, makeTone, uploadMediaFile } from '../support/mediaFixtures.ts';
import { call, makeAccount, makeKey, type TestAccount } from '../support/server.ts';
import { useService } from '../support/service.ts';
import { makeVideoDesign } from '../support/videoDesign.ts';
import { followJob } from '../support/wait.ts';

const run = promisify(execFile);
const tools = mediaTools({
  ffmpegPath: undefined,
  ffprobePath: undefined,
  ffmpegTimeoutMs: 60_000,
});

const svc = useService({
  account: { scopes: ['read', 'publish', 'media', 'generate'] },
  worker: { storage: true },
});
let acct: TestAccount;
let client: Client;
let dir: string;
let clipId: string;
let toneId: string;
const clients: Client[] = [];

async function connect(key: string) {
  const c = await connectMcp(svc.server, key, 'video-test');
  clients.push(c);
  return c;
}

beforeAll(async () => {
  acct = svc.acct;
  client = await connect(svc.key);
  dir = mkdtempSync(path.join(os.tmpdir(), 'sps-video-export-'));
  await makeTestClip(path.join(dir, 'clip.mp4'), 3);
  await makeTone(path.join(dir, 'tone.wav'), 3);
  clipId = (await uploadMediaFile(svc.server, svc.key, path.join(dir, 'clip.mp4'), 'clip.mp4')).id;
  toneId = (await uploadMediaFile(svc.server, svc.key, path.join(dir, 'tone.wav'), 'tone.wav')).id;
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  rmSync(dir, { recursive: true, force: true });
});

async function videoDesign(
  layout: VideoLayoutInput,
  accountId = acct.accountId,
  brandId = acct.brandId,
) {
  return (await makeVideoDesign(svc.server.pool, { accountId, brandId }, layout)).id;
}

type Reply = { isError?: boolean; text: string; data: any; images: Buffer[] };
async function tool(name: string, args: Record<string, unknown>, c = client): Promise<Reply> {
  const res = (await c.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text?: string; data?: string }[];
    structuredContent?: unknown;
  };
  const images = res.content
    .filter((part) => part.type === 'image')
    .map((part) => Buffer.from(part.data!, 'base64'));
  return {
    isError: res.isError,
    text: res.content[0]?.text ?? '',
    data: res.structuredContent,
    images,
  };
}

/** Follows a job to its end through job_status; every answer seen. */
async function follow(jobId: string) {
  const seen: any[] = [];
  await followJob(
    async (wait_s) => {
      const status = await tool('job_status', { job_id: jobId, wait_s });
      expect(status.isError, status.text).toBeFalsy();
      seen.push(status.data);
      return status.data;
    },
    {
      timeoutMs: 300_000,
      what: `job ${jobId}`,
      detail: async () =>
        JSON.stringify(
          (await svc.server.pool.query('select last_error from graphile_worker.jobs')).rows,
        ),
    },
  );
  return seen;
}

const layout = (over: Partial<VideoLayoutInput> = {}): VideoLayoutInput => ({
  canvas: { type: 'video', aspect: 'square', duration_s: 2, fps: 24 },
  layers: [
    { kind: 'video', asset_id: clipId, clip_id: 'intro', trim_start_s: 0.5 },
    {
      kind: 'text',
      text: 'Hello',
      x: 100,
      y: 100,
      w: 800,
      size: 96,
      color: '#ff0000',
      start_s: 0.5,
      end_s: 1.5,
      enter: { kind: 'fade', duration_s: 0.3 },
    },
  ],
  audio: { asset_id: toneId, volume: 0.8, fade_out_s: 0.5 },
  ...over,
});

describe('export_video and job_status', () => {
  it('exports a video design to an H.264/AAC MP4 of its size and duration', async () => {
    const designId = await videoDesign(layout());
    const started = await tool('export_video', { design_id: designId });
    expect(started.isError, started.text).toBeFalsy();
    expect(started.data).toMatchObject({ kind: 'video_export', status: 'queued', progress: 0 });

    const seen = await follow(started.data.job_id);
    const done = seen.at(-1);
    // Each answer is a later state: statuses in order, progress never going back.
    const order = ['queued', 'running', 'succeeded'];
    for (const [a, b] of seen.slice(1).map((s, i) => [seen[i], s])) {
      expect(order.indexOf(b.status)).toBeGreaterThanOrEqual(order.indexOf(a.status));
      expect(b.progress).toBeGreaterThanOrEqual(a.progress);
    }
    expect(done).toMatchObject({ status: 'succeeded', progress: 1, error: null, attempts: 1 });
    expect(done.result).toMatchObject({ duration_s: 2, width: 1080, height: 1080 });
    // Addresses under PUBLIC_BASE_URL (the test server's default, localhost:3000).
    expect(done.result.url).toBe(`http://localhost:3000/v1/assets/${done.result.asset_id}/content`);
    expect(done.result.signed_url).toContain(`/media/${done.result.asset_id}`);
    expect(Date.parse(done.finished_at)).toBeGreaterThanOrEqual(Date.parse(done.started_at));

    // The file as a client downloads it: H.264 yuv420p and AAC, of the design's duration.
    const signed = new URL(done.result.signed_url);
    const res = await fetch(`${svc.server.baseUrl}${signed.pathname}${signed.search}`);
    expect(res.status).toBe(200);
    const file = path.join(dir, 'export.mp4');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const { stdout } = await run(tools.ffprobePath, [
      ...['-v', 'error', '-show_entries', 'format=duration:stream=codec_name,pix_fmt,width,height'],
      ...['-of', 'json', file],
    ]);
    const info = JSON.parse(stdout);
    expect(Math.abs(Number(info.format.duration) - 2)).toBeLessThanOrEqual(1 / 24 + 0.03);
    expect(info.streams).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          codec_name: 'h264',
          width: 1080,
          height: 1080,
          pix_fmt: 'yuv420p',
        }),
        expect.objectContaining({ codec_name: 'aac' }),
      ]),
    );

    // The same design at the same version again: the same job, nothing encoded again.
    const again = await tool('export_video', { design_id: designId });
    expect(again.data).toMatchObject({ job_id: started.data.job_id, status: 'succeeded' });

    // Once its video is deleted from the library, the same version is exported anew.
    const deleted = await call(svc.server, 'DELETE', `/v1/assets/${done.result.asset_id}`, {
      key: svc.key,
    });
    expect(deleted.status).toBe(204);
    const anew = await tool('export_video', { design_id: designId });
    expect(anew.data.job_id).not.toBe(started.data.job_id);
    const redone = (await follow(anew.data.job_id)).at(-1);
    expect(redone.status).toBe('succeeded');
    expect(redone.result.asset_id).not.toBe(done.result.asset_id);
  }, 120_000);

  it('fails the job with a reason naming the layer whose asset is gone', async () => {
    const designId = await videoDesign(
      layout({
        layers: [{ kind: 'video', asset_id: '999999', clip_id: 'gone' }],
        audio: undefined,
      }),
    );
    const started = await tool('export_video', { design_id: designId });
    const done = (await follow(started.data.job_id)).at(-1);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/layer 0 .*clip_id gone.*video asset 999999.*no longer exists/);
    expect(done.result).toBeNull();
  }, 60_000);

  it("refuses an image design, and answers another account's job as not found", async () => {
    const image = await storeDesign(
      svc.server.pool,
      { accountId: acct.accountId, plan: 'plus' },
      {
        from: 'layout',
        brandId: acct.brandId,
        template: 'blank',
        layout: { canvas: { aspect: 'square', bg: '#ffffff' }, layers: [] },
      },
    );
    const refused = await tool('export_video', { design_id: image.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^not_a_video: .*image design/);

    const mine = await tool('export_video', { design_id: await videoDesign(layout()) });
    const other = await makeAccount(svc.server.pool);
    const otherClient = await connect(await makeKey(svc.server.pool, other.accountId, ['read']));
    const foreign = await tool('job_status', { job_id: mine.data.job_id }, otherClient);
    expect(foreign.isError).toBe(true);
    expect(foreign.text).toMatch(/^not_found/);
    await expect(tool('job_status', { job_id: mine.data.job_id, wait_s: 21 })).rejects.toThrow(
      /wait_s: Too big: expected number to be <=20/,
    );
  }, 60_000);
});

describe('a video post from a template, through MCP', () => {
  it('use_video_template, edit_layers by clip_id, export_video, job_status: the draft shows the video', async () => {
    const listed = await tool('list_video_templates', { shape: 'square' });
    expect(listed.data.templates.map((t: { name: string }) => t.name)).toContain(
      'clip-headline-square',
    );
    const all = await tool('list_video_templates', { limit: 50 });
    expect(all.data.templates.length).toBeGreaterThanOrEqual(12);

    const used = await tool('use_video_template', {
      template: 'clip-headline-square',
      platform: 'mastodon',
      texts: { headline: 'Our new studio' },
      media: { clip: clipId },
      audio_asset_id: toneId,
    });
    expect(used.isError, used.text).toBeFalsy();
    expect(used.data).toMatchObject({ layout_version: 1, kind: 'video', removed_slots: ['cta'] });

    const layers = await tool('get_layers', { post_id: used.data.post_id });
    const clip = layers.data.layers.find((l: { kind: string }) => l.kind === 'video');
    expect(clip).toMatchObject({ clip_id: 'clip', start_s: 0, end_s: 10 });
    expect(layers.data.layers.map((l: { summary: string }) => l.summary)).toContain(
      '"Our new studio"',
    );

    const edited = await tool('edit_layers', {
      post_id: used.data.post_id,
      layout_version: 1,
      ops: [{ op: 'set', clip_id: 'clip', fields: { trim_start_s: 1, volume: 0.5 } }],
    });
    expect(edited.isError, edited.text).toBeFalsy();
    expect(edited.data).toMatchObject({ layout_version: 2, media_paths: [], render_error: null });
    const stale = await tool('edit_layers', {
      post_id: used.data.post_id,
      layout_version: 1,
      ops: [{ op: 'delete', clip_id: 'clip' }],
    });
    expect(stale.text).toMatch(/^version_conflict/);
    const typo = await tool('edit_layers', {
      post_id: used.data.post_id,
      layout_version: 2,
      ops: [{ op: 'set', clip_id: 'clp', fields: { volume: 1 } }],
    });
    expect(typo.text).toMatch(
      /no video layer has clip_id clp; did you mean clip\? its clips: clip/,
    );
    const headline = layers.data.layers.find((l: { kind: string }) => l.kind === 'text');
    const twoTargets = await tool('edit_layers', {
      post_id: used.data.post_id,
      layout_version: 2,
      ops: [{ op: 'set', clip_id: 'clip', cid: headline.cid, fields: { volume: 1 } }],
    });
    expect(twoTargets.text).toMatch(/name different layers/);

    const started = await tool('export_video', { post_id: used.data.post_id });
    const done = (await follow(started.data.job_id)).at(-1);
    expect(done).toMatchObject({ status: 'succeeded', result: { duration_s: 10, width: 1080 } });
    const post = await tool('get_post', { post_id: used.data.post_id });
    expect(post.data.post).toMatchObject({ kind: 'video', asset_ids: [done.result.asset_id] });
  }, 240_000);

  it('an edit takes the old export off the post, and scheduling waits for a new one', async () => {
    const used = await tool('use_video_template', {
      template: 'clip-headline-square',
      platform: 'mastodon',
      texts: { headline: 'Version one' },
      media: { clip: clipId },
    });
    expect(used.isError, used.text).toBeFalsy();
    const post_id = used.data.post_id;
    const when = new Date(Date.now() + 86_400_000).toISOString();
    const early = await tool('schedule_post', { post_id, when });
    expect(early.text).toMatch(/^not_exported: .*export_video/);

    const first = (await follow((await tool('export_video', { post_id })).data.job_id)).at(-1);
    expect(first.status).toBe('succeeded');
    const edited = await tool('edit_layers', {
      post_id,
      layout_version: 1,
      ops: [{ op: 'set', clip_id: 'clip', fields: { trim_start_s: 0.5 } }],
    });
    expect(edited.isError, edited.text).toBeFalsy();
    const shown = async () => (await tool('get_post', { post_id })).data.post.asset_ids;
    expect(await shown()).toEqual([]);
    expect((await tool('schedule_post', { post_id, when })).text).toMatch(/^not_exported/);
    // The old export stays in the library.
    const library = await call(svc.server, 'GET', '/v1/assets?kind=video', { key: svc.key });
    expect(library.body.assets.map((a: { id: string }) => a.id)).toContain(first.result.asset_id);

    const second = (await follow((await tool('export_video', { post_id })).data.job_id)).at(-1);
    expect(await shown()).toEqual([second.result.asset_id]);
    const scheduled = await tool('schedule_post', { post_id, when });
    expect(scheduled.isError, scheduled.text).toBeFalsy();
  }, 240_000);

  it('refuses a slot the template does not have, and an asset of the wrong kind', async () => {
    const unknown = await tool('use_video_template', {
      template: 'photo-quote-story',
      platform: 'mastodon',
      texts: { headline: 'x' },
    });
    expect(unknown.text).toMatch(
      /texts\.headline: template photo-quote-story has no text slot "headline"; its text slots: quote/,
    );
    const wrongKind = await tool('use_video_template', {
      template: 'photo-quote-story',
      platform: 'mastodon',
      texts: { quote: 'Hello' },
      media: { photo: clipId },
    });
    expect(wrongKind.text).toMatch(
      new RegExp(`media\\.photo: asset ${clipId} is a video; this takes an image asset`),
    );
    const wrongAudio = await tool('use_video_template', {
      template: 'clip-headline-square',
      platform: 'mastodon',
      texts: { headline: 'x' },
      audio_asset_id: clipId,
    });
    expect(wrongAudio.text).toMatch(/audio_asset_id: asset \d+ is a video; this takes an audio/);
    const premium = await tool('use_video_template', {
      template: 'lower-third-story',
      platform: 'mastodon',
      texts: { name: 'Ada' },
    });
    expect(premium.text).toMatch(/^feature_required/);
  });
});

describe('preview_design on a video design', () => {
  /** The RGB pixel at (x, y) of a JPEG frame. */
  const pixelOf = async (jpeg: Buffer, x: number, y: number) => {
    const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
    const i = (y * info.width + x) * info.channels;
    return [data[i]!, data[i + 1]!, data[i + 2]!] as const;
  };

  it('answers one poster frame per time: the layers of that time at rest', async () => {
    const designId = await videoDesign({
      canvas: { type: 'video', aspect: 'square', duration_s: 2, fps: 25, bg: '#000000' },
      layers: [
        {
          kind: 'shape',
          shape: 'rect',
          x: 540,
          y: 540,
          w: 400,
          h: 400,
          fill: '#00ff00',
          start_s: 0.5,
          end_s: 1.5,
          enter: { kind: 'zoom_in', duration_s: 1 },
        },
      ],
    });
    const preview = await tool('preview_design', { design_id: designId, times: [0.2, 1, 1.8] });
    expect(preview.isError, preview.text).toBeFalsy();
    expect(preview.data).toMatchObject({ times: [0.2, 1, 1.8], page: null, media_path: null });
    expect(preview.images).toHaveLength(3);
    const meta = await sharp(preview.images[0]!).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([480, 480, 'jpeg']);
    // At 1 s the square is mid-zoom in the video, but a poster frame shows it at rest: its
    // corner (540, 540 of 1080) is green. Before and after its window, black.
    const corner = [Math.round((545 * 480) / 1080), Math.round((545 * 480) / 1080)] as const;
    const [r, g, b] = await pixelOf(preview.images[1]!, ...corner);
    expect(g).toBeGreaterThan(200);
    expect(r + b).toBeLessThan(80);
    for (const frame of [preview.images[0]!, preview.images[2]!])
      expect((await pixelOf(frame, ...corner))[1]).toBeLessThan(40);

    // The same times again answer the frames drawn already (one job for them).
    const again = await tool('preview_design', { design_id: designId, times: [0.2, 1, 1.8] });
    expect(again.images.map((i) => i.length)).toEqual(preview.images.map((i) => i.length));
    const { rows } = await svc.server.pool.query(
      "select count(*)::int as n from jobs where kind = 'video_preview' and subject like $1",
      [`design:${designId}@%`],
    );
    expect(rows[0].n).toBe(1);
  }, 60_000);

  it("shows the clip's picture at that time", async () => {
    const designId = await videoDesign(layout());
    const preview = await tool('preview_design', { design_id: designId, times: [0.1] });
    expect(preview.isError, preview.text).toBeFalsy();
    const { data } = await sharp(preview.images[0]!).raw().toBuffer({ resolveWithObject: true });
    const colours = new Set<string>();
    for (let i = 0; i < data.length; i += 3 * 997)
      colours.add(`${data[i]! >> 5},${data[i + 1]! >> 5}`);
    expect(colours.size).toBeGreaterThan(5);
  }, 60_000);

  it('keeps eight frames within the 40 KB result: those past it come as signed links that fetch them', async () => {
    const designId = await videoDesign(layout());
    const times = [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75];
    const res = (await client.callTool({
      name: 'preview_design',
      arguments: { design_id: designId, times },
    })) as {
      isError?: boolean;
      content: { type: string; data?: string }[];
      structuredContent?: any;
    };
    expect(res.isError, JSON.stringify(res.content).slice(0, 300)).toBeFalsy();
    // The whole result as sent: JSON text, structuredContent and the images that follow.
    expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThanOrEqual(40 * 1024);
    const listed = res.structuredContent.images as { url: string; inline: boolean }[];
    expect(listed).toHaveLength(8);
    const inline = res.content.filter((c) => c.type === 'image').map((c) => c.data!);
    expect(inline).toHaveLength(listed.filter((i) => i.inline).length);
    expect(listed.some((i) => !i.inline)).toBe(true);
    // Every frame at its signed address, no credential: the inlined ones are the same bytes.
    let next = 0;
    for (const image of listed) {
      const url = new URL(image.url);
      const fetched = await fetch(`${svc.server.baseUrl}${url.pathname}${url.search}`);
      expect(fetched.status).toBe(200);
      expect(fetched.headers.get('content-type')).toBe('image/jpeg');
      const jpeg = Buffer.from(await fetched.arrayBuffer());
      expect((await sharp(jpeg).metadata()).width).toBe(480);
      if (image.inline) expect(jpeg.toString('base64')).toBe(inline[next++]);
    }
    // A frame address with another index, or a changed signature, is not found.
    const first = new URL(listed[0]!.url);
    const moved = first.pathname.replace(/\/0$/, '/1');
    expect((await fetch(`${svc.server.baseUrl}${moved}${first.search}`)).status).toBe(404);
    const forged = first.search.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
    expect((await fetch(`${svc.server.baseUrl}${first.pathname}${forged}`)).status).toBe(404);
  }, 120_000);

  it('refuses a ninth time, a time past the end, and times for a Canvas design', async () => {
    const designId = await videoDesign(layout());
    // A ninth time is refused by the schema, as invalid arguments.
    await expect(
      tool('preview_design', {
        design_id: designId,
        times: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
      }),
    ).rejects.toThrow(/times: at most 8 times/);
    const late = await tool('preview_design', { design_id: designId, times: [0.5, 2] });
    expect(late.text).toMatch(/times\.1: must be before the video's duration_s \(2\)/);
    const canvas = await tool('create_design', { brand_uuid: acct.brandUuid });
    expect(canvas.isError, canvas.text).toBeFalsy();
    const times = await tool('preview_design', { design_id: canvas.data.design_id, times: [1] });
    expect(times.text).toMatch(/times are for video designs/);
    const { rows } = await svc.server.pool.query(
      "select count(*)::int as n from jobs where kind = 'video_preview' and subject like $1",
      [`design:${designId}@%`],
    );
    expect(rows[0].n).toBe(0);
  }, 60_000);
});
