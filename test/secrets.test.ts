// DATA_DIR/secrets.json: generated once, private, and the same for every process that starts
// on one DATA_DIR, even when they all start at the same moment.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { type LocalSecrets, loadLocalSecrets } from '../core/secrets.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'sps-secrets-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => path.join(root, `d${++n}`);

// Threads stand for processes (same fs calls, same interleavings) because they can be released
// together: each waits on one shared word; bumping it releases all of them within microseconds,
// so their reads of the missing file and their writes really do interleave.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const gate = new Int32Array(workerData.gate);
import(workerData.module).then(({ loadLocalSecrets }) => {
  parentPort.postMessage({ ready: 0 });
  for (let round = 1; round <= workerData.rounds; round++) {
    Atomics.wait(gate, 0, round - 1);
    parentPort.postMessage({ round, secrets: loadLocalSecrets(workerData.dirs[round - 1]) });
  }
});
`;

/** `threads` threads load the secrets of each of `dirs`, all at the same instant. */
async function raceLoads(threads: number, dirs: string[]) {
  const gate = new SharedArrayBuffer(4);
  const module = pathToFileURL(path.resolve('core/secrets.ts')).href;
  const results: LocalSecrets[][] = dirs.map(() => []);
  const workers = Array.from(
    { length: threads },
    () =>
      new Worker(THREAD, { eval: true, workerData: { gate, module, dirs, rounds: dirs.length } }),
  );
  // Resolves once every thread has answered `round` (0: loaded and waiting at the gate).
  let pending: { round: number; left: number; done: () => void } | undefined;
  let failed: (err: Error) => void = () => {};
  for (const w of workers) {
    w.on('message', (m: { ready?: number; round?: number; secrets?: LocalSecrets }) => {
      if (m.secrets) results[m.round! - 1]!.push(m.secrets);
      if (pending && (m.ready ?? m.round) === pending.round && --pending.left === 0) pending.done();
    });
    w.on('error', (err) => failed(err));
  }
  const waitFor = (round: number) =>
    new Promise<void>((resolve, reject) => {
      pending = { round, left: threads, done: resolve };
      failed = reject;
    });
  try {
    await waitFor(0);
    const view = new Int32Array(gate);
    for (let round = 1; round <= dirs.length; round++) {
      const done = waitFor(round);
      Atomics.store(view, 0, round);
      Atomics.notify(view, 0);
      await done;
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}

describe('DATA_DIR/secrets.json', () => {
  it('is created once, mode 0600, and read back unchanged', () => {
    const dir = freshDir();
    const first = loadLocalSecrets(dir);
    const file = path.join(dir, 'secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadLocalSecrets(dir)).toEqual(first);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(first);
  });

  it('a file from an older version keeps its members and gains the missing ones', () => {
    const dir = freshDir();
    loadLocalSecrets(dir);
    const file = path.join(dir, 'secrets.json');
    const { sessionSecret, pgPassword } = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ sessionSecret, pgPassword }), { mode: 0o600 });
    const upgraded = loadLocalSecrets(dir);
    expect(upgraded).toMatchObject({ sessionSecret, pgPassword });
    expect(upgraded.credentialsKey).toEqual(expect.any(String));
    expect(upgraded.mediaUrlSecret).toEqual(expect.any(String));
    expect(loadLocalSecrets(dir)).toEqual(upgraded);
  });

  it('processes starting at once on an empty DATA_DIR all get the same secrets', async () => {
    const dirs = Array.from({ length: 30 }, freshDir);
    const results = await raceLoads(4, dirs);
    dirs.forEach((dir, i) => {
      const onDisk = JSON.parse(readFileSync(path.join(dir, 'secrets.json'), 'utf8'));
      for (const got of results[i]!) expect(got).toEqual(onDisk);
    });
  });

  it('processes completing an older file at once all get the same secrets', async () => {
    const dirs = Array.from({ length: 30 }, freshDir);
    for (const dir of dirs) {
      const { sessionSecret, pgPassword } = loadLocalSecrets(dir);
      writeFileSync(path.join(dir, 'secrets.json'), JSON.stringify({ sessionSecret, pgPassword }));
    }
    const results = await raceLoads(4, dirs);
    dirs.forEach((dir, i) => {
      const onDisk = JSON.parse(readFileSync(path.join(dir, 'secrets.json'), 'utf8'));
      expect(Object.keys(onDisk).sort()).toEqual([
        'credentialsKey',
        'mediaUrlSecret',
        'oauthSigningKey',
        'pgPassword',
        'sessionSecret',
      ]);
      for (const got of results[i]!) expect(got).toEqual(onDisk);
    });
  });
});
