// Collecting mentions and replies (issue 21, item 1): a cron every 5 minutes fans out one job
// per active connected account whose platform reads them (keyed by the account, so two workers
// never read one account at once and a slow platform delays only itself); each job reads what
// came since the account's cursor through the platform's connector and keeps it as reply
// suggestions, each post once.
import { activeAccounts, sealedAccount } from '../connections/db.ts';
import { type Reading, type ReadingDeps, readThrough } from '../connections/reading.ts';
import { type Connectors, platformsWith } from '../connectors/connector.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { enqueueAccountInbound } from '../jobs/tasks.ts';
import { inboundCursor, recordInbound } from './db.ts';

/** Notifications a reading asks for at most (the rest waits for the next run). */
export const INBOUND_PER_RUN = 800;

/** The cron's part: one job per active connected account whose platform reads mentions. */
export async function startInboundCollections(pool: Pool, connectors: Connectors) {
  const accounts = await activeAccounts(pool, platformsWith(connectors, 'inbound'));
  for (const id of accounts) await enqueueAccountInbound(pool, { connected_account_id: id });
  return accounts.length;
}

/** Reads one account's new mentions and replies; answers how many posts were new. */
export async function collectAccountInbound(
  deps: ReadingDeps,
  connectedAccountId: string,
): Promise<Reading<{ read: number; added: number }>> {
  const account = await sealedAccount(deps.pool, connectedAccountId);
  if (!account) return { outcome: 'skipped', reason: 'the account is gone or needs reconnecting' };
  return readThrough(deps, account, 'inbound', 'Reading mentions', async (connector, access) => {
    const cursor = await inboundCursor(deps.pool, account.id);
    const found = await connector.inbound(access, cursor, INBOUND_PER_RUN);
    // The posts and the cursor past them commit together: none is skipped or read twice.
    const added = await withTransaction(deps.pool, (tx) =>
      recordInbound(tx, account, found.items, found.cursor),
    );
    return { read: found.items.length, added };
  });
}
