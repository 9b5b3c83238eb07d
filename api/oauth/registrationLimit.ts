// Dynamic registration is open to anyone (RFC 7591, as MCP clients need): what one address may
// register is bounded, so nobody fills the database with clients. In memory per API process:
// a burst spread over N processes gets N times the allowance, still bounded.
import { DomainError } from '../../core/errors.ts';
import { formatBytes } from '../../core/sizes.ts';

/** Registrations an address may make in a window, and the largest registration body. */
export const REGISTRATIONS_PER_WINDOW = 30;
export const WINDOW_MS = 10 * 60_000;
export const MAX_REGISTRATION_BYTES = 16 * 1024;

export function registrationLimit(now = () => Date.now()) {
  const seen = new Map<string, { start: number; count: number }>();
  return (address: string, contentLength: number | undefined) => {
    if (contentLength === undefined || contentLength > MAX_REGISTRATION_BYTES)
      throw new DomainError(
        413,
        'registration_too_large',
        `A client registration is at most ${formatBytes(MAX_REGISTRATION_BYTES)}, with its Content-Length.`,
      );
    const t = now();
    if (seen.size > 10_000)
      for (const [key, w] of seen) if (t - w.start > WINDOW_MS) seen.delete(key);
    const window = seen.get(address);
    if (!window || t - window.start > WINDOW_MS) {
      seen.set(address, { start: t, count: 1 });
      return;
    }
    if (++window.count > REGISTRATIONS_PER_WINDOW) {
      const wait = Math.ceil((window.start + WINDOW_MS - t) / 1000);
      throw new DomainError(
        429,
        'registration_throttled',
        `Too many client registrations from this address; try again in ${wait} s.`,
        {},
        { 'Retry-After': String(wait) },
      );
    }
  };
}
