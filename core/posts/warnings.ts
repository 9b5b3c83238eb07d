// What a post's answer warns of: a post the brand cannot publish when it is due (a platform
// this version does not publish to, no connection, one that needs reconnecting, or one that
// expires first) is saved all the same, and its answer (REST's receipt, MCP's create_post and
// schedule_post, the composer) says it will fail. GraphQL's CreatePostResult has no such member.
import { brandConnectionStatuses } from '../connections/service.ts';
import type { Pool } from '../db/pool.ts';
import { PLATFORM_NAMES } from '../kernel/platformNames.ts';
import { type Platform, publishes } from '../kernel/platforms.ts';

/**
 * The warnings of a post for `platform` of the brand, due at `dueAt` (a draft: none); empty
 * when it can publish there.
 */
export async function connectionWarnings(
  pool: Pool,
  accountId: string,
  brandId: string,
  platform: Platform,
  dueAt?: string | Date | null,
): Promise<string[]> {
  const name = PLATFORM_NAMES[platform];
  if (!publishes(platform))
    return [`Publishing to ${name} is not built yet: the post is saved but will fail when due.`];
  // The post is saved (or being saved) whatever this reading does: a failed reading must not
  // turn its answer into an error, which a client would retry into a second post.
  const statuses = await brandConnectionStatuses(pool, accountId, brandId).catch(() => undefined);
  if (!statuses)
    return [
      `The brand's ${name} connection could not be checked just now: the post is saved, but check that ${name} is connected (list_accounts, or the dashboard's Accounts page) before it is due.`,
    ];
  const connection = statuses.get(platform);
  if (!connection)
    return [
      `The brand has no ${name} account connected: the post is saved, but it will fail unless ${name} is connected for the brand before it is due (the dashboard's Accounts page, or the operator CLI's connect).`,
    ];
  if (connection.status === 'needs_reconnect')
    return [
      `The brand's ${name} account ${connection.handle} needs reconnecting: the post is saved, but it will fail unless ${name} is connected again before it is due (Reconnect on the dashboard's Accounts page).`,
    ];
  const due = dueAt ? new Date(dueAt) : undefined;
  if (due && connection.expiresAt && connection.expiresAt < due)
    return [
      `The brand's ${name} account ${connection.handle} expires at ${connection.expiresAt.toISOString()}, before the post is due, and cannot be renewed: the post is saved, but it will fail unless ${name} is reconnected before then (Reconnect on the dashboard's Accounts page).`,
    ];
  return [];
}
