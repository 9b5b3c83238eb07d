// Every worker that publishes is given the service's public media addresses (PublicMedia),
// built from PUBLIC_BASE_URL and the API's media-URL secret, so the platforms that fetch
// media (Threads, Instagram, Pinterest) get addresses the API serves; a worker without the
// secret still starts, and one behind a private PUBLIC_BASE_URL says so at start.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { publicMediaFor } from '../../core/assets/service.ts';
import type { PublishMedia } from '../../core/connectors/schema.ts';
import { createLogger } from '../../core/logger.ts';
import { connectorDepsOf } from '../../workers/index.ts';
import { freshDatabase } from '../support/db.ts';
import { logSink } from '../support/logs.ts';
import { noisePng } from '../support/noiseImage.ts';
import { exited, spawnStart } from '../support/processes.ts';
import { TEST_MEDIA_URL_SECRET } from '../support/server.ts';
import { startWorkerBeside, useService } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const CREDENTIALS_KEY = Buffer.alloc(32, 7).toString('base64');

describe("a worker's connectors", () => {
  const svc = useService({ account: { scopes: ['read', 'media'] } });

  it("are built with the worker's PublicMedia, whose addresses the API serves", async () => {
    const bytes = await noisePng(16, 16);
    const up = await fetch(`${svc.server.baseUrl}/v1/assets/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'image/png' },
      body: new Uint8Array(bytes),
    });
    const { id } = (await up.json()) as { id: string };
    // As bin/start.ts builds it: PUBLIC_BASE_URL and the secret the API signs with.
    const publicMedia = publicMediaFor({
      publicBaseUrl: svc.server.baseUrl,
      mediaUrlSecret: TEST_MEDIA_URL_SECRET,
    });
    const deps = connectorDepsOf(
      { pool: svc.server.pool, concurrency: 1, log: createLogger('silent'), publicMedia },
      { allowlist: [], allowHttp: false },
    );
    expect(deps.publicMedia).toBe(publicMedia);
    const res = await fetch(deps.publicMedia!.urlOf({ id } as PublishMedia));
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('a publishing worker behind a private PUBLIC_BASE_URL warns at start, naming it', async () => {
    const lines: string[] = [];
    const log = createLogger(
      'info',
      logSink((l) => lines.push(l)),
    );
    const publicMedia = publicMediaFor({
      publicBaseUrl: 'http://192.168.1.20:3000',
      mediaUrlSecret: TEST_MEDIA_URL_SECRET,
    });
    const worker = await startWorkerBeside(svc.server, { log, publicMedia, pools: ['publish'] });
    await worker.stop();
    const warned = lines.filter((l) => l.includes('PUBLIC_BASE_URL (http://192.168.1.20:3000)'));
    expect(warned).toHaveLength(1);
    expect(JSON.parse(warned[0]!).platforms).toEqual(['threads', 'instagram']);

    // A public one, or a worker that does not publish, says nothing.
    lines.length = 0;
    const reachable = publicMediaFor({
      publicBaseUrl: 'https://social.example.com',
      mediaUrlSecret: TEST_MEDIA_URL_SECRET,
    });
    await (await startWorkerBeside(svc.server, { log, publicMedia: reachable })).stop();
    await (await startWorkerBeside(svc.server, { log, publicMedia, pools: ['render'] })).stop();
    expect(lines.filter((l) => l.includes('PUBLIC_BASE_URL'))).toEqual([]);
  });
});

describe('the worker role (bin/start.ts worker)', () => {
  /** Starts the worker role until it says it started, then stops it; its output. */
  async function runWorker(env: Record<string, string>) {
    const db = await freshDatabase();
    const proc = spawnStart('worker', { DATABASE_URL: db.url, LOG_LEVEL: 'info', ...env }, [
      '--pool',
      'publish',
    ]);
    try {
      await waitFor(async () => /"msg":"worker started"/.test(proc.output()), {
        what: 'the worker to start',
        detail: proc.output,
        timeoutMs: 60_000,
      });
    } finally {
      const code = exited(proc.child);
      proc.child.kill('SIGTERM');
      await code;
      await db.drop();
    }
    return proc.output();
  }

  it('builds its PublicMedia from PUBLIC_BASE_URL, warning when it is on loopback', async () => {
    const out = await runWorker({
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'sps-worker-')),
      PUBLIC_BASE_URL: 'http://localhost:4321',
    });
    expect(out).toContain('PUBLIC_BASE_URL (http://localhost:4321) is not reachable');
  });

  it('starts without a media-URL secret it can read, saying what fails', async () => {
    // DATA_DIR under a plain file: secrets.json can be neither read nor made.
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'sps-worker-')), 'file');
    writeFileSync(file, '');
    const out = await runWorker({
      DATA_DIR: path.join(file, 'data'),
      CREDENTIALS_KEY,
      PUBLIC_BASE_URL: 'https://social.example.com',
    });
    expect(out).toMatch(/no media-URL secret \(MEDIA_URL_SECRET/);
    expect(out).not.toContain('PUBLIC_BASE_URL (');
  });
});
