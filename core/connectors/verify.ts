// Checking credentials with the platform before a connected account is stored (the operator
// CLI's `connect`): answers the account's handle, or a clear refusal.
import { DomainError } from '../errors.ts';
import type { OutboundPolicy } from '../outbound/guard.ts';
import type { Platform } from '../platforms/capabilities.ts';
import { PublicationError } from './connector.ts';
import { verifyMastodon } from './mastodon.ts';

export async function verifyConnection(
  platform: Platform,
  credentials: Record<string, unknown>,
  policy: OutboundPolicy,
): Promise<string> {
  if (platform !== 'mastodon')
    throw new DomainError(
      501,
      'not_implemented',
      `connect for ${platform} is not available yet; mastodon is.`,
    );
  try {
    return await verifyMastodon(policy, credentials);
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
