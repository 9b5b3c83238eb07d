// The OAuth concept's types: the clients an account allowed, and the consent page's view and
// answer. No Node here: the dashboard imports these types.
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import { SCOPES } from '../kernel/plans.ts';

export const AuthorizedClient = z.object({
  grant_id: z.string(),
  client_id: z.string(),
  client_name: z.string().nullable(),
  brand_id: z.string().nullable(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type AuthorizedClient = z.infer<typeof AuthorizedClient>;

export const ConsentView = z.object({
  client_id: z.string(),
  client_name: z.string().nullable(),
  redirect_host: z.string(),
  registered_at: z.string().nullable(),
  warning: z.string().nullable(),
  scopes: z.array(z.object({ name: z.enum(SCOPES), meaning: z.string() })),
  brands: z.array(z.object({ id: z.string(), name: z.string() })),
  brand_id: z.string().nullable().describe('The brand preselected: the dashboard’s selected one.'),
});
export type ConsentView = z.infer<typeof ConsentView>;

export const ConsentDecision = z
  .object({
    allow: z.boolean(),
    scopes: z.array(z.enum(SCOPES)).max(SCOPES.length).default([]),
    brand_id: IdInput.optional(),
  })
  .strict();
export type ConsentDecision = z.infer<typeof ConsentDecision>;
