// The fs storage driver keeps users' media private to the service's user.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { fsStorage } from '../../core/storage/fs.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sps-fs-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const storage = fsStorage(dataDir);
const modeOf = (p: string) => statSync(p).mode & 0o777;

describe('file modes', () => {
  it('stored bytes are 0600 and their directories 0700, however they arrive', async () => {
    await storage.put('acct1/streamed.png', Readable.from([Buffer.from('bytes')]));
    const spooled = path.join(dataDir, 'spooled');
    writeFileSync(spooled, 'bytes', { mode: 0o644 });
    await storage.putFile('acct1/moved.png', spooled);

    const media = path.join(dataDir, 'media');
    expect(modeOf(path.join(media, 'acct1/streamed.png'))).toBe(0o600);
    expect(modeOf(path.join(media, 'acct1/moved.png'))).toBe(0o600);
    expect(modeOf(path.join(media, 'acct1'))).toBe(0o700);
    expect(modeOf(media)).toBe(0o700);
  });
});
