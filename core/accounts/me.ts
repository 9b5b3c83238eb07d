// "Who am I": REST GET /v1/me, GraphQL `me` and MCP `whoami` all answer with this.
import { z } from 'zod';
import { Plan, Scope } from '../kernel/plans.ts';
import type { Principal } from '../kernel/principal.ts';

export const MeOutput = z.object({
  email: z.string().describe('Account e-mail.'),
  plan: Plan.describe('Effective plan.'),
  scopes: z.array(Scope).describe('Scopes held by the credential.'),
});
export type MeOutput = z.infer<typeof MeOutput>;

export const describeMe = (p: Principal): MeOutput => ({
  email: p.email,
  plan: p.plan,
  scopes: p.scopes,
});
