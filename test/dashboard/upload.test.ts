// The library's chunked upload (web/src/upload.ts), without a browser: chunks of part_bytes
// from index 0, progress out of the file's size, and a failed upload that resumes from the
// first chunk not acknowledged when the same file is chosen again, without a new session.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../web/src/api.ts';
import { type ChunkSender, pendingUpload, uploadInChunks } from '../../web/src/upload.ts';

function memoryStore() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
  };
}

const file = (bytes: number) =>
  Object.assign(new Blob([new Uint8Array(bytes).fill(7)]), { name: 'clip.mp4', lastModified: 1 });

function recordingSender(failAt?: { index: number; status: number }) {
  const log: string[] = [];
  let failed = false;
  const sender: ChunkSender = {
    init: async ({ size }) => {
      log.push(`init ${size}`);
      return {
        upload_id: 'u/1',
        part_bytes: 10,
        parts: Math.ceil(size / 10),
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      };
    },
    part: async (_id, index, chunk, progress) => {
      if (failAt && index === failAt.index && !failed) {
        failed = true;
        throw new ApiError(failAt.status, { detail: 'gone' });
      }
      progress(chunk.size);
      log.push(`part ${index} ${chunk.size}`);
    },
    finish: async (_id, parts) => {
      log.push(`finish ${parts}`);
      return { id: '9', kind: 'video' };
    },
  };
  return { sender, log };
}

describe('uploadInChunks', () => {
  it('sends part_bytes chunks from index 0, the last the rest, and reports progress to the size', async () => {
    const store = memoryStore();
    const { sender, log } = recordingSender();
    const seen: number[] = [];
    const asset = await uploadInChunks(file(25), sender, store, (sent) => seen.push(sent));
    expect(asset.id).toBe('9');
    expect(log).toEqual(['init 25', 'part 0 10', 'part 1 10', 'part 2 5', 'finish 3']);
    expect(seen.at(-1)).toBe(25);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(store.items.size).toBe(0);
  });

  it('resumes a failed upload from the first chunk not acknowledged, in the same session', async () => {
    const store = memoryStore();
    const { sender, log } = recordingSender({ index: 2, status: 502 });
    await expect(uploadInChunks(file(35), sender, store, () => {})).rejects.toThrow();
    expect(pendingUpload(store, file(35))?.next).toBe(2);
    log.length = 0;
    const seen: number[] = [];
    await uploadInChunks(file(35), sender, store, (sent) => seen.push(sent));
    expect(log).toEqual(['part 2 10', 'part 3 5', 'finish 4']);
    expect(seen[0]).toBe(20);
    expect(pendingUpload(store, file(35))).toBeUndefined();
  });

  it('starts afresh when the server no longer knows the session (404) or it expired', async () => {
    const store = memoryStore();
    const { sender, log } = recordingSender({ index: 1, status: 404 });
    await expect(uploadInChunks(file(25), sender, store, () => {})).rejects.toThrow();
    expect(pendingUpload(store, file(25))).toBeUndefined();
    log.length = 0;
    await uploadInChunks(file(25), sender, store, () => {});
    expect(log[0]).toBe('init 25');

    store.setItem(
      'upload:clip.mp4:25:1',
      JSON.stringify({
        upload_id: 'old',
        part_bytes: 10,
        parts: 3,
        next: 1,
        expires_at: '2000-01-01T00:00:00Z',
      }),
    );
    expect(pendingUpload(store, file(25))).toBeUndefined();
  });
});
