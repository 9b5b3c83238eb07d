// Watching tracked competitors: an hourly cron queues one keyed job per
// profile; each reads the profile's recent posts through the brand's connected account on
// that platform, keeps them with their counts, and reports each post that broke out, once
// ever, as a `competitor.breakout` event, fanned out to webhooks like the post events (the
// same signature and 2 s / 8 s retries). A breakout: at least BREAKOUT_AFTER_HOURS old, an
// engagement (likes + reposts + replies) at least the profile's ratio (default 3) times the
// median of its previous BASELINE_POSTS posts, and at least its floor (default 20); posts
// older than BREAKOUT_WITHIN_HOURS are not judged.

import { hasPlan } from '../accounts/service.ts';
import {
  activeAccountsOfBrand,
  type Reading,
  type ReadingDeps,
  readThrough,
} from '../connections/service.ts';
import { type Connectors, platformsWith } from '../connectors/schema.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { enqueueCompetitorWatch } from '../jobs/tasks.ts';
import { API_PLAN } from '../kernel/plans.ts';
import { bodyPreview, raiseEvents } from '../webhooks/service.ts';
import {
  type BreakoutRow,
  findCompetitor,
  markBreakouts,
  pruneCompetitorPosts,
  upsertCompetitorPosts,
  type WatchedRow,
  watchableCompetitors,
} from './db.ts';

export const BREAKOUT_AFTER_HOURS = 6;
/** Older posts are not judged: a first watch would report a profile's past hits as news. */
export const BREAKOUT_WITHIN_HOURS = 48;
export const BASELINE_POSTS = 20;
/** Posts read a watch (the newest). */
export const POSTS_READ = 40;
/** A breakout's caption, at most this many characters. */
export const CAPTION_LIMIT = 280;

/** The cron's part: one watch job per tracked profile that can be read. */
export async function startWatches(pool: Pool, connectors: Connectors): Promise<number> {
  const profiles = await watchableCompetitors(pool, platformsWith(connectors, 'profilePosts'));
  for (const p of profiles) await enqueueCompetitorWatch(pool, p);
  return profiles.length;
}

/** The `competitor.breakout` body (SPEC.md "Events"), serialized once. */
function breakoutBody(c: WatchedRow, b: BreakoutRow, detectedAt: Date): string {
  return JSON.stringify({
    event: 'competitor.breakout',
    competitor: {
      brand_id: c.brand_id,
      platform: c.platform,
      handle: c.handle,
      permalink: b.permalink,
      likes: b.likes,
      reposts: b.reposts,
      replies: b.replies,
      engagement: b.engagement,
      baseline: b.baseline,
      ratio: b.baseline > 0 ? Math.round((b.engagement / b.baseline) * 100) / 100 : null,
      caption: bodyPreview(b.caption, CAPTION_LIMIT),
      posted_at: b.posted_at.toISOString(),
      detected_at: detectedAt.toISOString(),
    },
  });
}

/** Queues the profile's watch again after `delayMs` (a platform's Retry-After), if still tracked. */
export async function watchAgainAfter(
  pool: Pool,
  competitorId: string,
  delayMs: number,
): Promise<void> {
  const profile = await findCompetitor(pool, competitorId);
  if (profile) await enqueueCompetitorWatch(pool, profile, delayMs);
}

/** Reads one profile and reports its new breakouts; answers what it did. */
export async function watchCompetitor(
  deps: ReadingDeps,
  competitorId: string,
): Promise<Reading<{ read: number; breakouts: number }>> {
  const c = await findCompetitor(deps.pool, competitorId);
  if (!c) return { outcome: 'skipped', reason: 'no longer tracked' };
  if (!(await hasPlan(deps.pool, c.account_id, API_PLAN)))
    return { outcome: 'skipped', reason: `competitor tracking needs the ${API_PLAN} plan` };
  const account = (await activeAccountsOfBrand(deps.pool, c.account_id, c.brand_id)).find(
    (a) => a.platform === c.platform,
  );
  if (!account)
    return {
      outcome: 'skipped',
      reason: `the brand has no connected ${c.platform} account to read with`,
    };
  return readThrough(
    deps,
    account,
    'profilePosts',
    `Reading ${c.handle}`,
    async (connector, access) => {
      const posts = await connector.profilePosts(access, c.handle, POSTS_READ);
      await upsertCompetitorPosts(deps.pool, c.id, posts);
      await pruneCompetitorPosts(deps.pool, c.id, POSTS_READ + BASELINE_POSTS);
      const breakouts = await withTransaction(deps.pool, async (tx) => {
        const found = await markBreakouts(tx, c, {
          afterHours: BREAKOUT_AFTER_HOURS,
          withinHours: BREAKOUT_WITHIN_HOURS,
          previous: BASELINE_POSTS,
        });
        const now = new Date();
        // The breakouts, their events and deliveries commit together: each is reported once.
        await raiseEvents(
          tx,
          found.map((b) => ({
            accountId: c.account_id,
            type: 'competitor.breakout',
            body: breakoutBody(c, b, now),
          })),
        );
        return found.length;
      });
      return { read: posts.length, breakouts };
    },
  );
}
