// The API keys' inputs and views (the dashboard's keys page reads ApiKeyInfo), and what other
// concepts see of an API key's holder: the bearer layer's principal, and the key
// a process remembers for the draft fast path (core/auth/rememberedKeys.ts).
import { z } from 'zod';
import { type Feature, type Plan, Scope } from '../kernel/plans.ts';
import type { KeyVersion } from '../kernel/principal.ts';

/** A key and its account, as the lookup behind every API request reads them. */
export type KeyHolder = {
  key_id: string;
  /** When the key was last stamped, in ms since the epoch (no Date parsed per request). */
  last_used_ms: number | null;
  scopes: Scope[];
  account_id: string;
  email: string;
  plan: Plan;
  selected_brand_id: string | null;
  budget_per_minute: number | null;
  features: Feature[];
};

/** A key's holder as the lookup that remembers it reads it (core/auth/rememberedKeys.ts). */
export type RememberedKey = KeyHolder &
  KeyVersion & {
    /**
     * The key's and its account's row versions as read (each row's xmin): any change to either
     * row since (the key deleted or stamped, a plan, budget or brand change) makes another.
     */
    row_version: string;
  };

/** Thrown where a statement found the key no longer as remembered (or could not check it). */
export class KeyChanged extends Error {
  constructor() {
    super('the API key changed since it was remembered; look it up afresh');
  }
}

export const CreateApiKeyInput = z
  .object({
    name: z.string().trim().max(100).default('').describe('A label to recognise the key by.'),
    scopes: z
      .array(Scope)
      .min(1)
      .transform((s) => [...new Set(s)])
      .describe('Scopes the key holds: read, publish, media, generate, engage.'),
  })
  .strict();
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

export const ApiKeyInfo = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(Scope),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

export const ApiKeyCreated = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(Scope),
  key: z.string().describe('The API key. Shown only in this response; store it now.'),
  created_at: z.string(),
});
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;
