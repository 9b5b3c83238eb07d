// Collecting mentions and replies: a cron every 5 minutes fans out one job
// per active connected account whose platform reads them (keyed by the account, so two workers
// never read one account at once and a slow platform delays only itself); each job reads what
// came since the account's cursor through the platform's connector and keeps it as reply
// suggestions, each post once. For an account with the engagement inbox, it also reads the
// posts holding the brand's watched keywords, and the brand's rules propose actions on the
// posts it kept for the first time (nothing runs until approved).
import { hasFeature } from '../accounts/service.ts';
import { engagementRulesOf, voiceOf } from '../brandMemory/service.ts';
import {
  activeAccount,
  activeAccountIdsOn,
  type Reading,
  type ReadingDeps,
  readThrough,
  type SealedAccount,
} from '../connections/service.ts';
import { type Connectors, type InboundPost, platformsWith } from '../connectors/schema.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { enqueueAccountInbound } from '../jobs/tasks.ts';
import { inboundCursor, type NewItem, recordInbound } from './db.ts';
import { offlineReplies } from './drafts.ts';
import { insertProposals } from './inboxDb.ts';
import { type EngagementRules, proposedActions, watchedKeywords } from './rules.ts';

/** Notifications a reading asks for at most (the rest waits for the next run). */
export const INBOUND_PER_RUN = 800;
/** Posts read a watched keyword a run (the newest). */
export const KEYWORD_POSTS = 20;

/** The cron's part: one job per active connected account whose platform reads mentions. */
export async function startInboundCollections(pool: Pool, connectors: Connectors) {
  const accounts = await activeAccountIdsOn(pool, platformsWith(connectors, 'inbound'));
  for (const id of accounts) await enqueueAccountInbound(pool, { connected_account_id: id });
  return accounts.length;
}

type Account = SealedAccount;
type Voice = Awaited<ReturnType<typeof voiceOf>>;

/** The rules' proposals for the posts first kept now (a reply with the built-in draft). */
async function propose(
  db: Queryable,
  account: Account,
  items: NewItem[],
  rules: EngagementRules,
  voice: Voice,
) {
  const proposals = items.flatMap((item) =>
    proposedActions(item, rules).map((action) => ({
      accountId: account.account_id,
      brandId: account.brand_id,
      itemId: item.id,
      action,
      draft: action === 'reply' ? (offlineReplies(item, voice)[0] ?? null) : null,
    })),
  );
  return insertProposals(db, proposals);
}

/** Reads one account's new mentions and replies (and keyword posts); answers what it kept. */
export async function collectAccountInbound(
  deps: ReadingDeps,
  connectedAccountId: string,
): Promise<Reading<{ read: number; added: number; keyword: number; proposed: number }>> {
  const account = await activeAccount(deps.pool, connectedAccountId);
  if (!account) return { outcome: 'skipped', reason: 'the account is gone or needs reconnecting' };
  const inbox = await hasFeature(deps.pool, account.account_id, 'engagement_inbox');
  const rules = inbox
    ? await engagementRulesOf(deps.pool, account.account_id, account.brand_id)
    : {};
  const voice = inbox ? await voiceOf(deps.pool, account.account_id, account.brand_id) : undefined;
  /** Posts, the cursor past them and the rules' proposals on them commit together. */
  const keep = (items: InboundPost[], cursor: string | null) =>
    withTransaction(deps.pool, async (tx) => {
      const added = await recordInbound(tx, account, items, cursor);
      const proposed = voice ? await propose(tx, account, added, rules, voice) : 0;
      return { added: added.length, proposed };
    });
  return readThrough(deps, account, 'inbound', 'Reading mentions', async (connector, access) => {
    const cursor = await inboundCursor(deps.pool, account.id);
    const found = await connector.inbound(access, cursor, INBOUND_PER_RUN);
    const mentions = await keep(found.items, found.cursor);
    let keyword = 0;
    let proposed = mentions.proposed;
    const search = deps.connectors[account.platform]?.search;
    if (search && inbox)
      for (const term of watchedKeywords(rules)) {
        const kept = await keep(await search(access, term, KEYWORD_POSTS), null);
        keyword += kept.added;
        proposed += kept.proposed;
      }
    return { read: found.items.length, added: mentions.added, keyword, proposed };
  });
}
