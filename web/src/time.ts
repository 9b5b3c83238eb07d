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

/** The brand's local wall time `yyyy-mm-ddThh:mm` (a datetime-local input) as an ISO instant. */
export function zonedToIso(local: string, timeZone: string): string {
  const guess = new Date(`${local}:00Z`);
  // The zone's offset at that moment, read back from how the zone shows the guess.
  const shown = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  })
    .format(guess)
    .replace(', ', 'T');
  const offset = new Date(`${shown}:00Z`).getTime() - guess.getTime();
  return new Date(guess.getTime() - offset).toISOString();
}

/** Monday 00:00 of the week holding `day` (a yyyy-mm-dd). */
export function mondayOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  const dow = (d.getUTCDay() + 6) % 7;
  return new Date(d.getTime() - dow * 86_400_000).toISOString().slice(0, 10);
}

export const addDays = (day: string, n: number) =>
  new Date(new Date(`${day}T00:00:00Z`).getTime() + n * 86_400_000).toISOString().slice(0, 10);
