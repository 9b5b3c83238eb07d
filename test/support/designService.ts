// A test server with a render worker beside it (the Canvas tests): designs render for real,
// through the job path, into the server's storage.
import sharp from 'sharp';
import { loadConfig } from '../../core/config.ts';
import { createLogger } from '../../core/logger.ts';
import { type Storage, storageFor } from '../../core/storage/storage.ts';
import type { RenderPoolOptions } from '../../render/renderPool.ts';
import { startWorker } from '../../workers/index.ts';
import { startServer, type TestServer } from './server.ts';

export type DesignService = { server: TestServer; storage: Storage; stop: () => Promise<void> };

export async function startDesignService(
  opts: { render?: RenderPoolOptions } = {},
): Promise<DesignService> {
  const server = await startServer();
  const config = loadConfig({ DATABASE_URL: server.db.url, DATA_DIR: server.dataDir });
  const storage = storageFor(config);
  const worker = await startWorker({
    pool: server.pool,
    concurrency: 2,
    log: createLogger('silent'),
    storage,
    render: opts.render,
  });
  return {
    server,
    storage,
    stop: async () => {
      await worker.stop();
      await server.close();
    },
  };
}

/** Uploads a plain PNG of one colour as an image asset of the key's account; its id. */
export async function uploadPng(
  server: { baseUrl: string },
  key: string,
  size: { width: number; height: number },
  background: string,
): Promise<string> {
  const png = await sharp({ create: { ...size, channels: 3, background } })
    .png()
    .toBuffer();
  const res = await fetch(`${server.baseUrl}/v1/assets/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' },
    body: new Uint8Array(png),
  });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}
