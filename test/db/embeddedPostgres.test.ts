// initdb reads the superuser's password from a file: nobody else may read it, or find it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withPasswordFile } from '../../core/db/embeddedPostgres.ts';

const modeOf = (p: string) => statSync(p).mode & 0o777;

describe("initdb's password file", () => {
  it('is 0600 alone in a fresh 0700 directory, and gone afterwards', async () => {
    let seen = '';
    await withPasswordFile('s3cret-pw', {}, async (file) => {
      seen = file;
      const dir = path.dirname(file);
      expect(path.dirname(dir)).toBe(os.tmpdir());
      expect(modeOf(dir)).toBe(0o700);
      expect(readdirSync(dir)).toEqual([path.basename(file)]);
      expect(modeOf(file)).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toBe('s3cret-pw\n');
    });
    expect(() => statSync(path.dirname(seen))).toThrow(/ENOENT/);
  });

  it('is removed when initdb fails too', async () => {
    let seen = '';
    const failing = withPasswordFile('pw', {}, async (file) => {
      seen = file;
      throw new Error('initdb failed');
    });
    await expect(failing).rejects.toThrow('initdb failed');
    expect(() => statSync(path.dirname(seen))).toThrow(/ENOENT/);
  });

  it.runIf(process.getuid?.() === 0)(
    'belongs to the user Postgres runs as when we are root',
    async () => {
      await withPasswordFile('pw', { uid: 65534, gid: 65534 }, async (file) => {
        expect(statSync(file).uid).toBe(65534);
        expect(statSync(path.dirname(file)).uid).toBe(65534);
      });
    },
  );
});
