// The dashboard's times in the brand's zone (web/src/time.ts): a wall time entered near a
// clock change lands on that wall time, and moving a post days on keeps its time of day.
import { describe, expect, it } from 'vitest';
import { dayKey, moveDays, wallOf, zonedToIso } from '../../web/src/time.ts';

describe('zonedToIso', () => {
  it.each([
    ['America/New_York', '2025-03-09T03:30', '2025-03-09T07:30:00.000Z'],
    ['America/New_York', '2025-03-09T05:00', '2025-03-09T09:00:00.000Z'],
    ['America/New_York', '2025-11-02T09:00', '2025-11-02T14:00:00.000Z'],
    ['Europe/Berlin', '2025-03-30T01:30', '2025-03-30T00:30:00.000Z'],
    ['Europe/Berlin', '2025-03-30T03:30', '2025-03-30T01:30:00.000Z'],
    ['Australia/Sydney', '2025-04-06T01:30', '2025-04-05T14:30:00.000Z'],
    ['Australia/Sydney', '2025-04-06T09:00', '2025-04-05T23:00:00.000Z'],
    ['UTC', '2026-01-01T00:00', '2026-01-01T00:00:00.000Z'],
    ['Asia/Kolkata', '2026-06-01T09:15', '2026-06-01T03:45:00.000Z'],
  ])('%s %s is %s', (zone, local, iso) => {
    expect(zonedToIso(local, zone)).toBe(iso);
    expect(wallOf(iso, zone).slice(0, 16)).toBe(local);
  });
});

describe('moveDays', () => {
  it('keeps the time of day across a clock change, either way', () => {
    const nine = zonedToIso('2025-03-08T09:00', 'America/New_York');
    const next = moveDays(nine, 1, 'America/New_York');
    expect(wallOf(next, 'America/New_York')).toBe('2025-03-09T09:00:00');
    expect(Date.parse(next) - Date.parse(nine)).toBe(23 * 3_600_000);
    expect(moveDays(next, -1, 'America/New_York')).toBe(nine);
  });

  it('buckets a post by its day in the zone, not UTC', () => {
    // 23:30 in New York is the next day in UTC.
    expect(dayKey('2025-06-02T03:30:00Z', 'America/New_York')).toBe('2025-06-01');
    expect(dayKey('2025-06-02T03:30:00Z', 'UTC')).toBe('2025-06-02');
  });
});
