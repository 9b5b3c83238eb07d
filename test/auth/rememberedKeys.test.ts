// The remembered keys (core/auth/rememberedKeys.ts): which keys go when full, and that a key
// remembered again is set in place (what the young-generation GC promotes as one key is looked
// up again and again is a bench figure: npm run bench, promotion).
import { describe, expect, it } from 'vitest';
import { apiKeyDigest } from '../../core/apikeys/keys.ts';
import type { RememberedKey } from '../../core/apikeys/schema.ts';
import { createKnownKeys } from '../../core/auth/rememberedKeys.ts';

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

  it('remembering a key again sets it in place, pushing no other key out', () => {
    const keys = createKnownKeys(4); // generations of 2
    keys.remember(digest(2), holder('2'));
    for (let i = 0; i < 5000; i++) keys.remember(digest(1), holder(String(i)));
    expect(keys.recall(digest(1))?.key_id).toBe('4999');
    expect(keys.recall(digest(2))?.key_id).toBe('2');
  });
});
