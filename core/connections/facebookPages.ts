// Which Facebook Page a connection publishes as: the Pages its user manages, listed with the
// long-lived user token the dashboard's connect keeps (sealed) as the refresh token, and the
// choice of one, whose Page token replaces the stored one in the same connection.
import type { Config } from '../config.ts';
import { PublicationError } from '../connectors/schema.ts';
import {
  type FacebookPage,
  facebookPages,
  facebookPageToken,
  withoutSecrets,
} from '../connectors/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { conflict, DomainError, invalid, notFound } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import { type OutboundLog, outboundPolicy } from '../outbound/guard.ts';
import {
  configuredCredentialsKey,
  openCredentials,
  sealCredentials,
  secretValues,
} from './credentials.ts';
import { lockConnection, ownedConnection, storeChosenAccount } from './db.ts';
import { forgetBrandHealth } from './health.ts';
import type { ChosenFacebookPage, FacebookPages } from './schema.ts';
import { connectionExpiry } from './tokens.ts';

export type FacebookPageDeps = {
  pool: Pool;
  config: Config;
  /** Where a refusal of the outbound guard records what it does not tell the caller. */
  log?: OutboundLog;
};

const RECONNECT =
  'reconnect Facebook from the Accounts page (Facebook Login), which keeps the user token that lists the Pages';

/** The account's Facebook connection, opened, with the user token that lists its Pages. */
async function facebookConnection(deps: FacebookPageDeps, accountId: string, id: string) {
  const row = isId(id) ? await ownedConnection(deps.pool, accountId, id) : undefined;
  if (!row) throw notFound('Connected account');
  if (row.platform !== 'facebook')
    throw invalid(['id'], 'only a Facebook connection publishes as a Page');
  const key = configuredCredentialsKey(deps.config);
  const credentials = row.credentials ? openCredentials(key, row.credentials) : {};
  const userToken = credentials.refresh_token;
  if (typeof userToken !== 'string' || userToken === '')
    throw conflict(
      'reconnect_required',
      `This Facebook connection holds only a Page token (given to the operator CLI), not the user token that lists the Pages: ${RECONNECT}.`,
    );
  const until = credentials.refresh_expires_at;
  if (typeof until === 'string' && Date.parse(until) <= Date.now())
    throw conflict(
      'reconnect_required',
      `The Facebook user token that lists the Pages expired: ${RECONNECT}.`,
    );
  return { row, key, credentials, userToken };
}

/** Facebook's refusal or failure, as this operation answers it (no secret in it). */
function facebookFailed(err: unknown, secrets: string[], doing: string): unknown {
  if (!(err instanceof PublicationError)) return err;
  const said = withoutSecrets(err.message, secrets);
  if (err.reconnect)
    return conflict(
      'reconnect_required',
      `Facebook refused the stored user token (${said}): ${RECONNECT}.`,
    );
  return new DomainError('platform_unavailable', `Facebook did not ${doing}: ${said}`);
}

const oauthContext = (deps: FacebookPageDeps) => ({
  app: deps.config.platformApps.facebook,
  policy: outboundPolicy(deps.config, deps.log),
});

async function pagesOf(deps: FacebookPageDeps, userToken: string, secrets: string[]) {
  try {
    return await facebookPages(oauthContext(deps), userToken);
  } catch (err) {
    throw facebookFailed(err, secrets, 'list the Pages');
  }
}

/** The Pages the Facebook connection's user manages (ids and names) and the one it posts as. */
export async function listFacebookPages(
  deps: FacebookPageDeps,
  accountId: string,
  connectedAccountId: string,
): Promise<FacebookPages> {
  const { credentials, userToken } = await facebookConnection(deps, accountId, connectedAccountId);
  const pages: FacebookPage[] = await pagesOf(deps, userToken, secretValues(credentials));
  const current = credentials.page_id;
  return { page_id: typeof current === 'string' ? current : null, pages };
}

/**
 * Makes the Facebook connection publish as `pageId`, one of the Pages its user manages: that
 * Page's token (read with the stored user token, as the connect reads it) is sealed with the
 * `page_id` and the Page's name as the handle, in one transaction; the connection keeps its id
 * and posts.
 */
export async function chooseFacebookPage(
  deps: FacebookPageDeps,
  accountId: string,
  connectedAccountId: string,
  pageId: string,
): Promise<ChosenFacebookPage> {
  const { row, key, credentials, userToken } = await facebookConnection(
    deps,
    accountId,
    connectedAccountId,
  );
  const secrets = secretValues(credentials);
  const pages = await pagesOf(deps, userToken, secrets);
  if (!pages.some((p) => p.id === pageId))
    throw new DomainError(
      'not_found',
      `Page ${pageId} is not one this Facebook user manages: choose one of the Pages listed, or add the user to that Page on Facebook and reconnect.`,
    );
  let page: { id: string; name: string; access_token: string };
  try {
    page = await facebookPageToken(oauthContext(deps), userToken, pageId);
  } catch (err) {
    throw facebookFailed(err, secrets, "give the Page's token");
  }
  if (page.id !== pageId)
    throw new DomainError(
      'platform_unavailable',
      `Facebook answered Page ${page.id} when asked for Page ${pageId}; nothing was changed.`,
    );
  const handle = page.name.trim();
  await withTransaction(deps.pool, async (tx) => {
    const locked = await lockConnection(tx, row.id);
    if (!locked?.credentials) throw notFound('Connected account');
    // Stored as they are now (a refresh may have renewed them meanwhile): only the Page changes.
    const stored = openCredentials(key, locked.credentials);
    if (stored.refresh_token !== userToken)
      throw conflict(
        'reconnect_required',
        'The Facebook connection was reconnected meanwhile; list its Pages again and choose.',
      );
    const next: Record<string, unknown> = {
      ...stored,
      access_token: page.access_token,
      page_id: page.id,
    };
    // A Page token fetched with a long-lived user token does not expire.
    delete next.expires_at;
    await storeChosenAccount(tx, row.id, {
      handle,
      sealed: sealCredentials(key, next),
      expiry: connectionExpiry('facebook', next),
    });
  });
  forgetBrandHealth(row.brand_id);
  return { id: row.id, platform: 'facebook', handle, page_id: page.id };
}
