// What a post's answer warns of: a post for a platform the brand cannot publish to now (no
// connection, or one that needs reconnecting) is saved all the same, and its answer (REST's
// receipt, MCP's create_post and schedule_post, the composer) says it will fail unless the
// platform is connected before it is due. GraphQL's CreatePostResult has no such member.
import { brandConnectionStatuses } from '../connections/service.ts';
import type { Pool } from '../db/pool.ts';
import type { Platform } from '../kernel/platforms.ts';

/** The warnings of a post for `platform` of the brand; empty when it can publish there. */
export async function connectionWarnings(
  pool: Pool,
  accountId: string,
  brandId: string,
  platform: Platform,
): Promise<string[]> {
  const connection = (await brandConnectionStatuses(pool, accountId, brandId)).get(platform);
  if (!connection)
    return [
      `The brand has no ${platform} account connected: the post is saved, but it will fail unless ${platform} is connected for the brand before it is due (the dashboard's Accounts page, or the operator CLI's connect).`,
    ];
  if (connection.status === 'needs_reconnect')
    return [
      `The brand's ${platform} account ${connection.handle} needs reconnecting: the post is saved, but it will fail unless ${platform} is connected again before it is due (Reconnect on the dashboard's Accounts page).`,
    ];
  return [];
}
