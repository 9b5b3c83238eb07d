// Checking credentials with the platform before a connected account is stored (the operator
// CLI's `connect`): answers the account's handle and the credentials to store (a connector may
// add a session to them), or a clear refusal.
import { DomainError } from '../kernel/errors.ts';
import type { Platform } from '../kernel/platforms.ts';
import type { OutboundPolicy } from '../outbound/guard.ts';
import { verifyBluesky } from './bluesky/index.ts';
import { PublicationError } from './connector.ts';
import { verifyMastodon } from './mastodon.ts';

type Verified = { handle: string; credentials: Record<string, unknown> };

const VERIFIERS: Partial<
  Record<Platform, (p: OutboundPolicy, c: Record<string, unknown>) => Promise<Verified>>
> = {
  bluesky: verifyBluesky,
  mastodon: async (policy, credentials) => ({
    handle: await verifyMastodon(policy, credentials),
    credentials,
  }),
};

export async function verifyConnection(
  platform: Platform,
  credentials: Record<string, unknown>,
  policy: OutboundPolicy,
): Promise<Verified> {
  const verify = VERIFIERS[platform];
  if (!verify)
    throw new DomainError(
      501,
      'not_implemented',
      `connect for ${platform} is not available yet; ${Object.keys(VERIFIERS).join(' and ')} are.`,
    );
  try {
    return await verify(policy, credentials);
  } catch (err) {
    if (err instanceof PublicationError)
      throw new DomainError(
        422,
        'credentials_refused',
        `The ${platform} credentials were not accepted: ${err.message}`,
      );
    throw err;
  }
}
