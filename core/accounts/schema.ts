// What the accounts concept takes from outside (routes, the operator CLI).
import { z } from 'zod';

/**
 * An account's e-mail, wherever one is given (sign-up, sign-in, the operator CLI): trimmed,
 * at most 320 characters, and an address. One schema, so an e-mail an account can be made
 * with is exactly one a sign-in accepts; what cannot be one is refused before it reaches
 * the login throttle or the lookup.
 */
export const EmailInput = z
  .string()
  .trim()
  .max(320, 'use at most 320 characters')
  .pipe(z.email('must be an e-mail address'));
