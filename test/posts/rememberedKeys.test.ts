// The remembered keys (core/posts/rememberedKeys.ts): which keys go when full, and that
// remembering a key again leaves nothing for the young-generation GC to copy out (a Map kept in
// recency order by a delete and a set did: see api/inFlight.ts).
import { describe, expect, it } from 'vitest';
import { apiKeyDigest } from '../../core/apikeys/keys.ts';
import type { RememberedKey } from '../../core/apikeys/schema.ts';
import { createKnownKeys } from '../../core/posts/rememberedKeys.ts';
import { promotedBy } from '../support/gc.ts';

const holder = (id: string): RememberedKey => ({
  key_id: id,
  last_used_ms: null,
  scopes: ['read', 'publish'],
  account_id: '1',
  email: 'someone@example.com',
  plan: 'business',
  selected_brand_id: '1',
  budget_per_minute: null,
  features: [],
  row_version: '1/1',
});
const digest = (n: number) => apiKeyDigest(`sps_${String(n).padStart(32, '0')}`);

describe('remembered keys', () => {
  it('keeps the keys of the last two generations, and the latest holder of each', () => {
    const keys = createKnownKeys(4); // generations of 2
    keys.remember(digest(1), holder('1'));
    keys.remember(digest(2), holder('2')); // the first generation is full
    keys.remember(digest(1), holder('1 again'));
    expect(keys.recall(digest(1))?.key_id).toBe('1 again');
    keys.remember(digest(3), holder('3')); // so is the second: the first is dropped
    expect(keys.recall(digest(2))).toBeUndefined();
    expect(keys.recall(digest(1))?.key_id).toBe('1 again');
    expect(keys.recall(digest(3))?.key_id).toBe('3');
    keys.forget(digest(3));
    expect(keys.recall(digest(3))).toBeUndefined();
  });

  it('remembering a key again keeps nothing alive through a young-generation GC', () => {
    const keys = createKnownKeys();
    const key = digest(1);
    // Each lookup remembers the key with a fresh holder, about 4 kB here.
    const lookUp = (count: number) => {
      for (let i = 0; i < count; i++)
        keys.remember(key, { ...holder(String(i)), features: new Array(512).fill(i) });
    };
    lookUp(100);
    expect(promotedBy(() => lookUp(5000))).toBeLessThan(500_000);
  });
});
