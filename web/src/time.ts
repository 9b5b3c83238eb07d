// Times as the brand sees them: in its time zone, whatever the browser's.
export const dayKey = (iso: string | Date, timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(typeof iso === 'string' ? new Date(iso) : iso);

export const timeOfDay = (iso: string, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit' }).format(
    new Date(iso),
  );

export const longDate = (iso: string, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(iso));

const wallFormat = (timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });

/** The wall time `yyyy-mm-ddThh:mm:ss` the zone shows at an instant. */
export const wallOf = (instant: string | number, timeZone: string) =>
  wallFormat(timeZone).format(new Date(instant)).replace(', ', 'T');

/** The zone's offset from UTC at an instant, in ms (east positive). */
const offsetAt = (instant: number, timeZone: string) =>
  Date.parse(`${wallOf(instant, timeZone)}Z`) - instant;

/**
 * A wall time in the zone (`yyyy-mm-ddThh:mm`, a datetime-local input's, or with seconds) as
 * an ISO instant. The offset is read at the instant found, and once more if that moved it
 * across a clock change, so times near one land on the wall time asked for.
 */
export function zonedToIso(local: string, timeZone: string): string {
  const wall = Date.parse(`${local.length === 16 ? `${local}:00` : local}Z`);
  const first = offsetAt(wall, timeZone);
  let instant = wall - first;
  const second = offsetAt(instant, timeZone);
  if (second !== first) instant = wall - second;
  return new Date(instant).toISOString();
}

/** The same wall time `days` days later (or earlier) in the zone, across clock changes too. */
export function moveDays(iso: string, days: number, timeZone: string): string {
  const [date, time] = wallOf(iso, timeZone).split('T') as [string, string];
  return zonedToIso(`${addDays(date, days)}T${time}`, timeZone);
}

/** Monday 00:00 of the week holding `day` (a yyyy-mm-dd). */
export function mondayOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  const dow = (d.getUTCDay() + 6) % 7;
  return new Date(d.getTime() - dow * 86_400_000).toISOString().slice(0, 10);
}

export const addDays = (day: string, n: number) =>
  new Date(new Date(`${day}T00:00:00Z`).getTime() + n * 86_400_000).toISOString().slice(0, 10);
