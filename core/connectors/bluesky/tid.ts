// Record keys for Bluesky posts: TIDs (atproto.com/specs/tid), 13 characters of base32-sortable
// encoding a 64-bit number: a zero bit, 53 bits of microseconds since the epoch, 10 bits of
// clock id. Ours are derived from the publication instead of the clock, so every retry of one
// attempt writes the same key and the PDS can refuse a second record (putRecord, swapRecord
// null).
import { createHash } from 'node:crypto';

const ALPHABET = '234567abcdefghijklmnopqrstuvwxyz';

export function encodeTid(micros: bigint, clockId: number): string {
  let n = (micros << 10n) | BigInt(clockId & 0x3ff);
  let out = '';
  for (let i = 0; i < 13; i++) {
    out = ALPHABET[Number(n & 31n)] + out;
    n >>= 5n;
  }
  return out;
}

/**
 * The TID of one record of one publication attempt: its time is when the post was due (so
 * the feed orders it there), the sub-millisecond digits and the clock id come from a hash of
 * `key`, so two posts due the same millisecond still get different keys.
 */
export function deterministicTid(due: Date, key: string): string {
  const hash = createHash('sha256').update(key).digest();
  const micros = BigInt(due.getTime()) * 1000n + BigInt(hash.readUInt16BE(0) % 1000);
  return encodeTid(micros, hash.readUInt16BE(2));
}

export const isTid = (s: string) =>
  /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(s);
