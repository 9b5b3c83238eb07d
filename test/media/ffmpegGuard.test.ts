// ffprobe and ffmpeg on user media: a manifest, playlist or script that
// would open other inputs is refused before it is read, so nothing is fetched past the
// outbound guard; every run is killed at its time limit; FFMPEG_PATH and FFPROBE_PATH name
// the binaries every run uses.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import ffprobeInstaller from '@ffprobe-installer/ffprobe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THUMBNAIL_ATTEMPTS } from '../../core/assets/service.ts';
import { ConfigError, loadConfig } from '../../core/config.ts';
import { videoFrame } from '../../core/media/frame.ts';
import { probeMedia } from '../../core/media/probe.ts';
import {
  MediaToolFailed,
  type MediaTools,
  mediaTools,
  runMediaTool,
} from '../../core/media/tools.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { testPatternVideo } from '../support/noiseVideo.ts';
import { call } from '../support/server.ts';
import { startService, type TestServer, useService } from '../support/service.ts';

const ACCEPTED = /MP4\/MOV or WebM\/Matroska video; MP3, WAV, Ogg, AAC, FLAC or M4A audio/;

let dir: string;
let clip: Buffer;
let clipFile: string;
/** Every request the loopback listener received, as "METHOD /path". */
const received: string[] = [];
let listener: Server;
let origin: string;
/** A service with the default, empty OUTBOUND_ALLOWLIST. */
const strictService = useService({ account: { scopes: ['read', 'media'] } });
let strict: TestServer, strictKey: string;
const tools: MediaTools = mediaTools({
  ffmpegPath: undefined,
  ffprobePath: undefined,
  ffmpegTimeoutMs: 20_000,
});

const dashManifest = () => `<?xml version="1.0" encoding="UTF-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT10S"
     minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
  <BaseURL>${origin}/dash/</BaseURL>
  <Period>
    <AdaptationSet mimeType="video/mp4">
      <Representation id="1" bandwidth="100000" codecs="avc1.4d401e" width="320" height="240">
        <BaseURL>video.mp4</BaseURL>
        <SegmentBase indexRange="0-100"/>
      </Representation>
    </AdaptationSet>
  </Period>
</MPD>
`;

const hlsPlaylist = (segment: string) =>
  `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n${segment}\n#EXT-X-ENDLIST\n`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sps-ffguard-'));
  clipFile = path.join(dir, 'clip.mp4');
  clip = await testPatternVideo(clipFile);
  listener = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    // The ingest's own download: a manifest served as a video.
    if (req.url === '/manifest.mpd')
      return res.writeHead(200, { 'content-type': 'video/mp4' }).end(dashManifest());
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  ({ server: strict, key: strictKey } = strictService);
});
afterAll(async () => {
  await new Promise((r) => listener.close(r));
  await rm(dir, { recursive: true, force: true });
});

/** init, one part, finish: the chunked upload of `bytes` (under 8 MB, so one part). */
async function chunkedUpload(server: TestServer, key: string, filename: string, bytes: Buffer) {
  const init = await call(server, 'POST', '/v1/assets/upload/init', {
    key,
    body: { filename, size_bytes: bytes.length },
  });
  expect(init.status).toBe(200);
  const part = await fetch(
    `${server.baseUrl}/v1/assets/upload/part?upload_id=${init.body.upload_id}&index=0`,
    {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(bytes),
    },
  );
  expect(part.status).toBe(200);
  return call(server, 'POST', '/v1/assets/upload/finish', {
    key,
    body: { upload_id: init.body.upload_id, parts: 1 },
  });
}

async function expectNothingStored(server: TestServer, key: string) {
  const listed = await call(server, 'GET', '/v1/assets', { key });
  expect(listed.body.assets).toEqual([]);
  expect(listed.body.storage.used_bytes).toBe(0);
}

describe('a DASH manifest uploaded as a video', () => {
  it('is refused at finish with a 422 naming the accepted formats; nothing is fetched or stored', async () => {
    // The allowlist is empty: the guard would refuse the BaseURL, but ffprobe never asks it.
    received.length = 0;
    const res = await chunkedUpload(strict, strictKey, 'movie.mp4', Buffer.from(dashManifest()));
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'upload_id'], type: 'not_media' });
    expect(res.body.detail[0].msg).toMatch(ACCEPTED);
    expect(received).toEqual([]);
    await expectNothingStored(strict, strictKey);
  });

  describe('ingested from a video/* URL', () => {
    // The ingest needs loopback allowed for its own download; the manifest's BaseURL is on the
    // same allowed address, so the guard would let it through if it were asked: only the
    // demuxer whitelist stops ffprobe fetching it.
    const svc = useService({
      env: { OUTBOUND_ALLOWLIST: '127.0.0.1/32', OUTBOUND_ALLOW_HTTP: 'true' },
      account: { scopes: ['read', 'media'] },
    });
    let server: TestServer, key: string;
    beforeAll(() => ({ server, key } = svc));

    it('is refused by POST /v1/assets; only the manifest itself is downloaded', async () => {
      received.length = 0;
      const res = await call(server, 'POST', '/v1/assets', {
        key,
        body: { url: `${origin}/manifest.mpd` },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'not_media' });
      expect(res.body.detail[0].msg).toMatch(ACCEPTED);
      expect(received).toEqual(['GET /manifest.mpd']);
      await expectNothingStored(server, key);
    });

    it('is refused by the MCP tool upload_asset the same way', async () => {
      const client = await connectMcp(server, key);
      try {
        received.length = 0;
        const res = await client.callTool({
          name: 'upload_asset',
          arguments: { url: `${origin}/manifest.mpd` },
        });
        expect(res.isError).toBe(true);
        expect(JSON.stringify(res.content)).toMatch(ACCEPTED);
        expect(received).toEqual(['GET /manifest.mpd']);
        await expectNothingStored(server, key);
      } finally {
        await client.close();
      }
    });
  });
});

describe('playlists and scripts that name other inputs', () => {
  it('an HLS playlist naming a local video is neither probed through nor decoded', async () => {
    const playlist = path.join(dir, 'local.m3u8');
    await writeFile(playlist, hlsPlaylist(`file://${clipFile}`));
    expect(await probeMedia(tools, playlist)).toBeUndefined();
    await expect(videoFrame(tools, playlist, 0)).rejects.toThrow(/not on whitelist/);
  });

  it('an ffconcat script naming a local video is not decoded', async () => {
    // Detected from its first line whatever the file is called, like an uploaded file.
    const script = path.join(dir, 'upload-without-extension');
    await writeFile(script, 'ffconcat version 1.0\nfile clip.mp4\n');
    expect(await probeMedia(tools, script)).toBeUndefined();
    await expect(videoFrame(tools, script, 0)).rejects.toThrow(/not on whitelist/);
  });

  it('a chunked upload of an HLS playlist naming a local file is refused and stores nothing', async () => {
    // The ffprobe from npm also declines a playlist whose file name lacks .m3u8 (uploads have
    // none); the 2018 ffmpeg from npm, and other builds FFPROBE_PATH may name, do not.
    const playlist = Buffer.from(hlsPlaylist('file:///etc/passwd'));
    const res = await chunkedUpload(strict, strictKey, 'clip.m3u8', playlist);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('not_media');
    expect(res.body.detail[0].msg).toMatch(ACCEPTED);
    await expectNothingStored(strict, strictKey);
  });

  it('a real video still probes and gives a frame', async () => {
    expect(await probeMedia(tools, clipFile)).toMatchObject({
      kind: 'video',
      mime: 'video/mp4',
      width: 160,
      height: 120,
    });
    const png = await videoFrame(tools, clipFile, 0.5);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('the time limit', () => {
  it('kills a probe that overruns it and reports a timeout', async () => {
    const err = await probeMedia({ ...tools, timeoutMs: 1 }, clipFile).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaToolFailed);
    expect((err as MediaToolFailed).reason).toBe('timeout');
    expect((err as Error).message).toMatch(/killed after its time limit/);
  });

  it('kills a frame extraction that overruns it', async () => {
    const err = await videoFrame({ ...tools, timeoutMs: 1 }, clipFile, 0).catch((e: unknown) => e);
    expect((err as MediaToolFailed).reason).toBe('timeout');
  });

  it('finish answers 422 media_timeout with FFMPEG_TIMEOUT_S tiny, and stores nothing', async () => {
    const { server, key, close } = await startService({
      env: { FFMPEG_TIMEOUT_S: '0.001' },
      account: { scopes: ['read', 'media'] },
    });
    try {
      const res = await chunkedUpload(server, key, 'clip.mp4', clip);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].type).toBe('media_timeout');
      expect(res.body.detail[0].msg).toMatch(/longer than 0.001 s/);
      await expectNothingStored(server, key);
    } finally {
      await close();
    }
  });
});

describe('niceness', () => {
  it('runs a tool asked to be nice at that niceness (video encodes yield to deliveries)', async () => {
    // The shell reads its niceness after a pause, well after the spawn set it.
    const run = (nice?: number) =>
      runMediaTool('/bin/sh', ['-c', 'sleep 0.3; nice'], {
        timeoutMs: 10_000,
        maxOutputBytes: 100,
        nice,
      }).then((out) => Number(out.toString().trim()));
    expect(await run()).toBe(0);
    expect(await run(10)).toBe(10);
  });
});

describe('FFMPEG_PATH and FFPROBE_PATH', () => {
  it('name the binaries every probe and frame runs, always with the input limits', async () => {
    // Wrappers that log their arguments and run the npm binaries.
    const wrap = async (name: string, real: string) => {
      const file = path.join(dir, name);
      await writeFile(file, `#!/bin/sh\necho "$@" >> "${file}.log"\nexec "${real}" "$@"\n`);
      await chmod(file, 0o755);
      return file;
    };
    const ffprobe = await wrap('ffprobe-wrapper', ffprobeInstaller.path);
    const ffmpeg = await wrap('ffmpeg-wrapper', ffmpegInstaller.path);
    const { server, key, close } = await startService({
      env: { FFPROBE_PATH: ffprobe, FFMPEG_PATH: ffmpeg },
      account: { scopes: ['read', 'media'] },
    });
    try {
      const done = await chunkedUpload(server, key, 'clip.mp4', clip);
      expect(done.status).toBe(201);
      const thumb = await fetch(`${server.baseUrl}/v1/assets/${done.body.id}/thumbnail`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(thumb.status).toBe(200);
      for (const log of [`${ffprobe}.log`, `${ffmpeg}.log`]) {
        const runs = (await readFile(log, 'utf8')).trim().split('\n');
        expect(runs).toHaveLength(1);
        expect(runs[0]).toContain('-protocol_whitelist file -format_whitelist mov,');
      }
    } finally {
      await close();
    }
  });

  it('a video whose frame ffmpeg cannot take: 404 no_thumbnail, ffmpeg run THUMBNAIL_ATTEMPTS times in all', async () => {
    // ffprobe (the npm one) accepts the clip; this ffmpeg logs its run and fails.
    const ffmpeg = path.join(dir, 'ffmpeg-failing');
    await writeFile(
      ffmpeg,
      `#!/bin/sh\necho run >> "${ffmpeg}.log"\necho "broken build" >&2\nexit 1\n`,
    );
    await chmod(ffmpeg, 0o755);
    const svc = await startService({
      env: { FFMPEG_PATH: ffmpeg },
      account: { scopes: ['read', 'media'] },
    });
    const { server, key } = svc;
    try {
      const done = await chunkedUpload(server, key, 'clip.mp4', clip);
      expect(done.status).toBe(201);
      const thumbnail = () => call(server, 'GET', `/v1/assets/${done.body.id}/thumbnail`, { key });
      const replies = [];
      for (let i = 0; i < 5; i++) replies.push(await thumbnail());
      for (const res of replies) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('no_thumbnail');
        expect(res.body.detail).toMatch(/ffmpeg could not take a frame of it/);
      }
      expect(replies[0]!.body.detail).toMatch(/\(1 of 3 attempts failed\)/);
      expect(replies[4]!.body.detail).toMatch(/3 of 3 attempts failed, so it is not tried again/);
      const runs = (await readFile(`${ffmpeg}.log`, 'utf8')).trim().split('\n');
      expect(runs).toHaveLength(THUMBNAIL_ATTEMPTS);
      // The video itself is still served, and deleting it leaves nothing behind.
      const content = await fetch(`${server.baseUrl}/v1/assets/${done.body.id}/content`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(content.status).toBe(200);
      await content.arrayBuffer();
      expect((await call(server, 'DELETE', `/v1/assets/${done.body.id}`, { key })).status).toBe(
        204,
      );
      await expectNothingStored(server, key);
    } finally {
      await svc.close();
    }
  });

  it('refuses a relative path or a file that is not executable', () => {
    expect(() => loadConfig({ FFMPEG_PATH: 'bin/ffmpeg' })).toThrow(
      /FFMPEG_PATH: must be an absolute path/,
    );
    expect(() => loadConfig({ FFPROBE_PATH: path.join(dir, 'clip.mp4') })).toThrow(ConfigError);
    expect(() => loadConfig({ FFPROBE_PATH: path.join(dir, 'missing') })).toThrow(
      /FFPROBE_PATH: must name an executable file/,
    );
  });
});
