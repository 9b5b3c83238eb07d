// Sizes as people read them in messages: "at most 15 MB", not "at most 15728640 bytes".
// Binary units (a MB is 1,048,576 bytes), as every limit here is set (15 * 1024 * 1024).

const UNITS = ['KB', 'MB', 'GB', 'TB'] as const;

/**
 * `bytes` as a size: whole units where it is a whole number of them (`15 MB`, `10 GB`), else
 * one decimal below 100 of a unit (`95.4 MB`), whole above; under 1 KB, in bytes.
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || Math.abs(bytes) < 1024)
    return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  let value = bytes;
  let unit = -1;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${shown} ${UNITS[unit]}`;
}
