// A credential's last use (an API key's, an OAuth grant's) is stamped apart from its lookup,
// at most once a minute: the lookup statement stays read-only, and only the one request a
// minute that finds the stamp older than that writes it.
const STAMP_EVERY_MS = 60_000;
/** When this process last stamped each credential: requests arriving together stamp it once. */
const stamped = new Map<string, number>();

/**
 * Whether the credential `id` (namespaced by kind), last stamped at `lastUsedMs` (ms since
 * the epoch), is due a stamp, without marking it: stampDue marks.
 */
export const stampIsDue = (id: string, lastUsedMs: number | null, now = Date.now()): boolean =>
  (lastUsedMs === null || now - lastUsedMs >= STAMP_EVERY_MS) &&
  now - (stamped.get(id) ?? 0) >= STAMP_EVERY_MS;

/** stampIsDue, and if so marks it stamped (its caller then stamps it). */
export function stampDue(id: string, lastUsedMs: number | null, now = Date.now()): boolean {
  if (!stampIsDue(id, lastUsedMs, now)) return false;
  if (stamped.size > 10_000) stamped.clear();
  stamped.set(id, now);
  return true;
}
