// Byte counts in messages read as sizes (core/kernel/sizes.ts): the limits of SPEC and the plans as
// people write them, never a raw count of bytes.
import { describe, expect, it } from 'vitest';
import { MAX_CHUNKED_BYTES, MAX_IMAGE_BYTES } from '../core/assets/schema.ts';
import { STORAGE_QUOTA_BYTES } from '../core/kernel/plans.ts';
import { formatBytes } from '../core/kernel/sizes.ts';

describe('formatBytes', () => {
  it.each([
    [MAX_IMAGE_BYTES, '15 MB'],
    [MAX_CHUNKED_BYTES, '500 MB'],
    [STORAGE_QUOTA_BYTES.free, '500 MB'],
    [STORAGE_QUOTA_BYTES.plus, '10 GB'],
    [STORAGE_QUOTA_BYTES.business, '200 GB'],
    [16 * 1024, '16 KB'],
    [64 * 1024, '64 KB'],
    [8 * 1024 * 1024, '8 MB'],
    [1536, '1.5 KB'],
    [100_000_000, '95.4 MB'],
    [482_113, '471 KB'],
    [50_000, '48.8 KB'],
    [0, '0 bytes'],
    [1, '1 byte'],
    [1023, '1023 bytes'],
  ])('%d bytes read as %s', (bytes, shown) => {
    expect(formatBytes(bytes)).toBe(shown);
  });
});
