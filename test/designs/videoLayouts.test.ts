// A whole video layout through design_post (MCP, with the SDK's client) and PATCH
// /v1/posts/{id}/design (REST): it replaces the timeline under layout_version, keeps clip_ids
// and cids, and every bad input is refused with the layout unchanged; a Canvas layout cannot
// replace a video and the other way round.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/mcpClient.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { call } from '../support/server.ts';
import { useService } from '../support/service.ts';

// The worker renders the Canvas design of the last test.
const svc = useService({
  account: { scopes: ['read', 'publish', 'media'] },
  worker: { storage: true },
});
let client: Client;
let dir: string;
let clipId: string;

beforeAll(async () => {
  client = await connectMcp(svc.server, svc.key, 'video-layouts-test');
  dir = mkdtempSync(path.join(os.tmpdir(), 'sps-video-layouts-'));
  await makeTestClip(path.join(dir, 'clip.mp4'), 2);
  clipId = (await uploadMediaFile(svc.server, svc.key, path.join(dir, 'clip.mp4'), 'clip.mp4')).id;
}, 60_000);
afterAll(async () => {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
});

async function tool(name: string, args: Record<string, unknown>) {
  const res = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { text?: string }[];
    structuredContent?: any;
  };
  return { isError: res.isError, text: res.content[0]?.text ?? '', data: res.structuredContent };
}

/** A draft video post from a template: its id and its design's layout as stored. */
async function videoPost() {
  const used = await tool('use_video_template', {
    template: 'clip-headline-square',
    platform: 'mastodon',
    texts: { headline: 'First cut' },
    media: { clip: clipId },
  });
  expect(used.isError, used.text).toBeFalsy();
  return used.data.post_id as string;
}

const storedLayout = async (postId: string) =>
  (await tool('get_post', { post_id: postId })).data.post.layout;

const timeline = (over: Record<string, unknown> = {}) => ({
  canvas: { type: 'video', aspect: 'square', duration_s: 4, fps: 25 },
  layers: [
    { kind: 'video', asset_id: clipId, clip_id: 'main', fit: 'contain' },
    {
      kind: 'text',
      cid: 'title',
      text: 'Second cut',
      x: 80,
      y: 80,
      w: 900,
      size: 80,
      start_s: 1,
      end_s: 3,
      enter: { kind: 'zoom_in', duration_s: 0.5 },
    },
  ],
  ...over,
});

describe('a whole video layout', () => {
  it('replaces the timeline through PATCH, keeping the clip_id and cid given', async () => {
    const postId = await videoPost();
    const res = await call(svc.server, 'PATCH', `/v1/posts/${postId}/design`, {
      key: svc.key,
      body: { layout: timeline(), layout_version: 1 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ layout_version: 2, media_paths: [], render_error: null });
    const layers = await tool('get_layers', { post_id: postId });
    expect((await storedLayout(postId)).canvas).toMatchObject({ duration_s: 4, fps: 25 });
    expect(layers.data.layers).toMatchObject([
      { kind: 'video', clip_id: 'main' },
      { kind: 'text', cid: 'title', start_s: 1, end_s: 3 },
    ]);
    const post = await tool('get_post', { post_id: postId });
    expect(post.data.post.kind).toBe('video');
  });

  it('replaces it through MCP design_post, refusing a stale layout_version', async () => {
    const postId = await videoPost();
    const done = await tool('design_post', {
      post_id: postId,
      layout: timeline(),
      layout_version: 1,
    });
    expect(done.isError, done.text).toBeFalsy();
    expect(done.data.layout_version).toBe(2);
    const stale = await tool('design_post', {
      post_id: postId,
      layout: timeline({ canvas: { type: 'video', aspect: 'square', duration_s: 9 } }),
      layout_version: 1,
    });
    expect(stale.text).toMatch(/^version_conflict/);
    expect((await storedLayout(postId)).canvas.duration_s).toBe(4);
  });

  it('names the bad field of a video layout, and changes nothing', async () => {
    const postId = await videoPost();
    const before = await storedLayout(postId);
    const bad = timeline();
    (bad.layers as Record<string, unknown>[])[1]!.end_s = 7;
    const res = await call(svc.server, 'PATCH', `/v1/posts/${postId}/design`, {
      key: svc.key,
      body: { layout: bad, layout_version: 1 },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'layout', 'layers', 1, 'end_s'],
        msg: expect.stringMatching(/at most the video's duration_s \(4\)/),
      }),
    ]);
    // A value wrong for the video layout is named there, not answered with the Canvas
    // layout's complaint that `type` or `enter` are unknown fields.
    const wrong = async (layout: Record<string, unknown>) => {
      const res = await call(svc.server, 'PATCH', `/v1/posts/${postId}/design`, {
        key: svc.key,
        body: { layout },
      });
      expect(res.status).toBe(422);
      return res.body.detail[0];
    };
    expect(
      await wrong(timeline({ canvas: { type: 'video', aspect: 'square', duration_s: 200 } })),
    ).toMatchObject({ loc: ['body', 'layout', 'canvas', 'duration_s'] });
    expect(
      await wrong(timeline({ canvas: { type: 'video', aspect: 'square', duration_s: '5' } })),
    ).toMatchObject({ loc: ['body', 'layout', 'canvas', 'duration_s'] });
    const fadeIn = timeline();
    (fadeIn.layers as Record<string, any>[])[1]!.enter.kind = 'fade_in';
    expect(await wrong(fadeIn)).toMatchObject({
      loc: ['body', 'layout', 'layers', 1, 'enter', 'kind'],
      msg: expect.stringMatching(/did you mean `fade`/),
    });
    expect(
      await wrong(timeline({ layers: [{ kind: 'drawing', x: 0, y: 0, w: 10, h: 10 }] })),
    ).toMatchObject({ loc: ['body', 'layout', 'layers', 0, 'kind'] });
    // Nine clips showing at once: the ninth is refused (each is decoded at the same time).
    const crowded = timeline({
      layers: Array.from({ length: 9 }, (_, i) => ({
        kind: 'video',
        asset_id: clipId,
        clip_id: `c${i}`,
        start_s: i * 0.1,
      })),
    });
    expect(await wrong(crowded)).toMatchObject({
      loc: ['body', 'layout', 'layers', 8, 'start_s'],
      msg: expect.stringMatching(/at most 8 clips may overlap in time/),
    });
    // The clip is 2 s long: cut 2 s into it, it would show nothing.
    const pastEnd = timeline();
    (pastEnd.layers as Record<string, any>[])[0]!.trim_start_s = 2;
    expect(await wrong(pastEnd)).toMatchObject({
      loc: ['body', 'layout', 'layers', 0, 'trim_start_s'],
      msg: 'the clip is 2 s long; trim_start_s must be less than that',
    });
    const unowned = await call(svc.server, 'PATCH', `/v1/posts/${postId}/design`, {
      key: svc.key,
      body: {
        layout: timeline({ layers: [{ kind: 'video', asset_id: '999999', clip_id: 'x' }] }),
        layout_version: 1,
      },
    });
    expect(unowned.status).toBe(422);
    expect(unowned.body.detail[0].loc).toEqual(['body', 'layout', 'layers', 0, 'asset_id']);
    expect(await storedLayout(postId)).toEqual(before);
  });

  it('does not turn a video into a Canvas design, nor the other way round', async () => {
    const postId = await videoPost();
    const canvas = await call(svc.server, 'PATCH', `/v1/posts/${postId}/design`, {
      key: svc.key,
      body: { layout: { canvas: { aspect: 'square' }, layers: [] } },
    });
    expect(canvas.status).toBe(422);
    expect(canvas.body.detail[0]).toMatchObject({
      loc: ['body', 'layout', 'canvas'],
      msg: expect.stringMatching(/video design: give a video layout/),
    });
    const template = await call(svc.server, 'PATCH', `/v1/posts/${postId}/design`, {
      key: svc.key,
      body: { template: 'blank' },
    });
    expect(template.status).toBe(409);
    expect(template.body.code).toBe('video_design');

    const image = await call(svc.server, 'POST', '/v1/posts', {
      key: svc.key,
      body: {
        platform: 'mastodon',
        body: 'A picture',
        brand_id: svc.acct.brandId,
        layout: { canvas: { aspect: 'square' }, layers: [] },
      },
    });
    expect(image.status, JSON.stringify(image.body)).toBe(201);
    const video = await call(svc.server, 'PATCH', `/v1/posts/${image.body.id}/design`, {
      key: svc.key,
      body: { layout: timeline() },
    });
    expect(video.status).toBe(422);
    expect(video.body.detail[0].msg).toMatch(/Canvas design: a video layout needs a video design/);
  });
});
