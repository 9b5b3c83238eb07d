// The provider's endpoints that store a row for anyone who asks are bounded per client
// address, so nobody fills the database from one machine: dynamic registration (open to anyone,
// RFC 7591, as MCP clients need: a Client row for a day), and an authorization request or a
// logout page (an Interaction and a Session row for an hour, signed in or not). In memory per
// API process: a burst spread over N processes gets N times the allowance, still bounded.
import { DomainError } from '../../core/kernel/errors.ts';
import { formatBytes } from '../../core/kernel/sizes.ts';
import { throttledAddress } from '../../core/sessions/service.ts';

export const WINDOW_MS = 10 * 60_000;
/** Registrations an address may make in a window, and the largest registration body. */
export const REGISTRATIONS_PER_WINDOW = 30;
export const MAX_REGISTRATION_BYTES = 16 * 1024;
/**
 * Authorization requests (and, counted apart, logout pages) an address may open in a window:
 * a person signs in a few times an hour, and a client refreshes rather than asks again.
 */
export const AUTHORIZATIONS_PER_WINDOW = 60;

/**
 * At most `perWindow` calls an address in each window that its first call opens; past that,
 * 429 `code` with Retry-After until the window ends. An IPv6 client counts by its /64, as the
 * login throttle counts it: one host usually has the whole /64 to choose from.
 */
export function perAddressLimit(
  rule: { perWindow: number; code: string; what: string },
  now = () => Date.now(),
) {
  const seen = new Map<string, { start: number; count: number }>();
  return (ip: string) => {
    const address = throttledAddress(ip);
    const t = now();
    if (seen.size > 10_000)
      for (const [key, w] of seen) if (t - w.start > WINDOW_MS) seen.delete(key);
    const window = seen.get(address);
    if (!window || t - window.start > WINDOW_MS) {
      seen.set(address, { start: t, count: 1 });
      return;
    }
    if (++window.count > rule.perWindow) {
      const wait = Math.ceil((window.start + WINDOW_MS - t) / 1000);
      throw new DomainError(
        429,
        rule.code,
        `Too many ${rule.what} from this address; try again in ${wait} s.`,
        {},
        { 'Retry-After': String(wait) },
      );
    }
  };
}

export function registrationLimit(now = () => Date.now()) {
  const count = perAddressLimit(
    {
      perWindow: REGISTRATIONS_PER_WINDOW,
      code: 'registration_throttled',
      what: 'client registrations',
    },
    now,
  );
  return (address: string, contentLength: number | undefined) => {
    if (contentLength === undefined || contentLength > MAX_REGISTRATION_BYTES)
      throw new DomainError(
        413,
        'registration_too_large',
        `A client registration is at most ${formatBytes(MAX_REGISTRATION_BYTES)}, with its Content-Length.`,
      );
    count(address);
  };
}

/** Authorization requests from one address (each stores an Interaction, and a Session). */
export const authorizationLimit = (now = () => Date.now()) =>
  perAddressLimit(
    {
      perWindow: AUTHORIZATIONS_PER_WINDOW,
      code: 'authorization_throttled',
      what: 'sign-in requests',
    },
    now,
  );

/** Logout pages from one address (each stores a Session with the page's form secret). */
export const logoutLimit = (now = () => Date.now()) =>
  perAddressLimit(
    { perWindow: AUTHORIZATIONS_PER_WINDOW, code: 'logout_throttled', what: 'sign-out requests' },
    now,
  );
