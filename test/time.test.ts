// isoTime (core/kernel/time.ts) writes exactly what toISOString does, for any time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../core/kernel/time.ts';

const write = (d: Date) => {
  try {
    return d.toISOString();
  } catch (err) {
    return err;
  }
};
const written = (d: Date) => {
  try {
    return isoTime(d);
  } catch (err) {
    return err;
  }
};

describe('isoTime', () => {
  it('is toISOString, digit for digit, across the whole range of dates', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: false }), (d) => {
        expect(written(d)).toEqual(write(d));
      }),
      { numRuns: 20_000 },
    );
  });

  it('pads every field and keeps the edges of the four-digit years', () => {
    for (const at of [
      '2026-01-02T03:04:05.006Z',
      '2026-12-31T23:59:59.999Z',
      '0999-12-31T23:59:59.999Z',
      '1000-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      '+010000-01-01T00:00:00.000Z',
      '-000001-06-15T12:00:00.050Z',
    ])
      expect(isoTime(new Date(at))).toBe(at);
  });
});
