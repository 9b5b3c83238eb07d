// What the accounts concept takes from outside (routes, the operator CLI): an e-mail, and
// what a new account's password must be, checked alike wherever one is set (the dashboard's
// sign-up and the operator CLI's account create).
import { z } from 'zod';
import { Brand } from '../brands/schema.ts';
import { Feature, Plan } from '../kernel/plans.ts';
import { PLATFORMS } from '../kernel/platformNames.ts';

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

export const MIN_PASSWORD_LENGTH = 10;

export const NewPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `use at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(1024, 'use at most 1,024 characters');

/**
 * What the dashboard shows of the signed-in account (login response and GET /auth/session),
 * with the plan order and the platforms its pages offer, so the pages copy neither.
 */
export const SessionView = z.object({
  account: z.object({
    id: z.string(),
    email: z.string(),
    plan: Plan,
    features: z.array(Feature),
    credits: z.string().describe('Generation credits left (a decimal string).'),
  }),
  brands: z.array(Brand),
  selected_brand_id: z.string().nullable(),
  plans: z.array(Plan).describe('Every plan, lowest first.'),
  platforms: z
    .array(z.enum(PLATFORMS))
    .describe(
      'The platforms this version publishes to, which the composer offers (a post with media for those that take no text post, as Instagram).',
    ),
});
export type SessionView = z.infer<typeof SessionView>;
