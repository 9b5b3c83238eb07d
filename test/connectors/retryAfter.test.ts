// Retry-After as platforms send it, hostile values included: delta-seconds or an HTTP date,
// never past a day (a wait of years, or one past Date's range, would otherwise make an
// Invalid Date where the wait is scheduled), nothing for what is not a Retry-After.
import { describe, expect, it } from 'vitest';
import { RETRY_AFTER_MAX_MS, retryAfterMs } from '../../core/connectors/http.ts';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const waitOf = (value: string | undefined) =>
  retryAfterMs(value === undefined ? {} : { 'retry-after': value }, NOW);

describe('retryAfterMs', () => {
  it('reads delta-seconds and an HTTP date', () => {
    expect(waitOf('120')).toBe(120_000);
    expect(waitOf('Sun, 29 Nov 2026 12:05:00 GMT')).toBe(300_000);
    expect(waitOf('Sun, 29 Nov 2026 11:00:00 GMT')).toBe(0);
  });

  it('takes an absurd wait as a day, so the time it makes is a real one', () => {
    for (const value of ['99999999999999', '9'.repeat(400), 'Fri, 31 Dec 9999 23:59:59 GMT']) {
      const ms = waitOf(value);
      expect(ms).toBe(RETRY_AFTER_MAX_MS);
      expect(new Date(NOW + ms!).toISOString()).toBe('2026-11-30T12:00:00.000Z');
    }
  });

  it('answers nothing for what is not a Retry-After', () => {
    for (const value of [undefined, '', 'soon', '-5', '1e3', 'NaN'])
      expect(waitOf(value)).toBeUndefined();
  });
});
