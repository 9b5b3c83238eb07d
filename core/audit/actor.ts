// Who made a change, as the audit log records it: a key, a dashboard session, an OAuth
// client, or the service itself (the publication worker).
import type { Credential } from '../kernel/principal.ts';

export type Actor = { kind: 'api_key' | 'session' | 'oauth' | 'system'; id: string | null };

export const SYSTEM: Actor = { kind: 'system', id: null };

export function actorOf(credential: Credential): Actor {
  if (credential.kind === 'oauth') return { kind: 'oauth', id: credential.clientId };
  return { kind: credential.kind, id: credential.id };
}
