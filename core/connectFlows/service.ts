// The dashboard's OAuth connect flow: "Connect X" starts a flow bound to the session (a random
// state, kept hashed, and a PKCE verifier, sealed), the browser goes to the platform's
// authorize page, and the platform sends it back to the callback, which consumes the flow once,
// trades the code for tokens and connects the brand's account with them.
import { createHash, randomBytes } from 'node:crypto';
import { requireBrandFor } from '../brands/service.ts';
import type { Config } from '../config.ts';
import {
  configuredCredentialsKey,
  connectWithTokens,
  openCredentials,
  sealCredentials,
} from '../connections/service.ts';
import type { OAuthApps, OAuthTokens } from '../connectors/schema.ts';
import { OAUTH_APPS } from '../connectors/service.ts';
import type { Pool } from '../db/pool.ts';
import { conflict, DomainError } from '../kernel/errors.ts';
import type { Principal } from '../kernel/principal.ts';
import { type OutboundLog, outboundPolicy } from '../outbound/guard.ts';
import type { OAuthPlatform } from '../platformApps.ts';
import { consumeConnectFlow, deleteSpentFlows, flowExpired, insertConnectFlow } from './db.ts';
import type {
  ConnectCallbackQuery,
  ConnectErrorCode,
  StartConnectInput,
  StartedConnect,
} from './schema.ts';

/** How long a person has on the platform's page before the flow lapses. */
export const CONNECT_FLOW_TTL_SECONDS = 10 * 60;

export type ConnectFlowDeps = {
  pool: Pool;
  config: Config;
  /** OAuth apps that stand in for the shipped ones (OAUTH_APPS) on their platforms. */
  apps?: OAuthApps;
  /** Where failures are told (never with a token or a code). */
  log?: OutboundLog;
};

/** A callback that did not connect, and why (the Accounts page's `connect_error`). */
export class ConnectFailed extends Error {
  readonly code: ConnectErrorCode;
  constructor(code: ConnectErrorCode, message: string) {
    super(message);
    this.name = 'ConnectFailed';
    this.code = code;
  }
}

/** Where the platform sends the browser back (CONTRACT.md; the operator registers it). */
export const connectCallbackUrl = (config: Pick<Config, 'publicBaseUrl'>, platform: string) =>
  `${config.publicBaseUrl.replace(/\/+$/, '')}/connect/${platform}/callback`;

const sha256 = (value: string) => createHash('sha256').update(value).digest();
const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** The platform's app and OAuthApp, or why the dashboard cannot connect it. */
function connectable(deps: ConnectFlowDeps, platform: OAuthPlatform) {
  const app = deps.config.platformApps[platform];
  if (!app.clientId || !app.clientSecret) {
    const [id, secret] = app.clientVars;
    throw conflict(
      'platform_not_configured',
      `Connecting ${platform} needs the operator's app on ${platform}: set ${id} and ${secret} (and register ${connectCallbackUrl(deps.config, platform)} as its redirect URI), then restart the service.`,
      { variables: [...app.clientVars] },
    );
  }
  return { app, oauthApp: deps.apps?.[platform] ?? OAUTH_APPS[platform] };
}

/**
 * Starts a connect flow for the caller's session: answers the platform's authorize page for the
 * browser to open. Needs the operator's client id and secret for the platform.
 */
export async function startConnectFlow(
  deps: ConnectFlowDeps,
  caller: Principal,
  platform: OAuthPlatform,
  input: StartConnectInput,
): Promise<StartedConnect> {
  if (caller.credential.kind !== 'session')
    throw new DomainError('session_required', 'Connecting an account needs a dashboard session.');
  const { app, oauthApp } = connectable(deps, platform);
  const brand = await requireBrandFor(deps.pool, caller, input.brand_id);
  const state = base64url(randomBytes(32));
  // RFC 7636: 43 characters of base64url, and its S256 challenge.
  const verifier = oauthApp.pkce ? base64url(randomBytes(32)) : undefined;
  const sessionId = caller.credential.id;
  await deleteSpentFlows(deps.pool, sessionId);
  await insertConnectFlow(deps.pool, {
    stateHash: sha256(state),
    sessionId,
    accountId: caller.accountId,
    brandId: brand.id,
    platform,
    codeVerifier: verifier
      ? sealCredentials(configuredCredentialsKey(deps.config), { verifier })
      : null,
    ttlSeconds: CONNECT_FLOW_TTL_SECONDS,
  });
  return {
    authorize_url: oauthApp.authorizeUrl(app, {
      state,
      redirectUri: connectCallbackUrl(deps.config, platform),
      ...(verifier ? { codeChallenge: base64url(sha256(verifier)) } : {}),
    }),
  };
}

/**
 * The platform's callback: the state must be a live flow of this very session for this
 * platform, consumed here once; then the code is traded for tokens and the brand's account is
 * connected with them (reconnecting keeps the same connection and its posts). Throws
 * ConnectFailed with the reason the Accounts page shows.
 */
export async function finishConnectFlow(
  deps: ConnectFlowDeps,
  session: { id: string } | undefined,
  platform: OAuthPlatform,
  query: ConnectCallbackQuery,
): Promise<{ id: string; platform: string; handle: string }> {
  if (query.error !== undefined)
    throw query.error === 'access_denied'
      ? new ConnectFailed('access_denied', `Access was declined on ${platform}.`)
      : new ConnectFailed('platform_error', `${platform} answered the connection with an error.`);
  if (!session)
    throw new ConnectFailed('session_required', 'Sign in to the dashboard, then connect again.');
  if (!query.state || !query.code)
    throw new ConnectFailed('invalid_state', 'The callback carries no code or state.');
  const stateHash = sha256(query.state);
  const flow = await consumeConnectFlow(deps.pool, {
    stateHash,
    sessionId: session.id,
    platform,
  });
  if (!flow)
    throw (await flowExpired(deps.pool, { stateHash, sessionId: session.id }))
      ? new ConnectFailed('expired', 'The connection took longer than 10 minutes; start again.')
      : new ConnectFailed('invalid_state', 'This connection link is unknown or used already.');

  let target: ReturnType<typeof connectable>;
  try {
    target = connectable(deps, platform);
  } catch {
    throw new ConnectFailed('not_configured', `${platform} cannot be connected here now.`);
  }
  const ctx = { app: target.app, policy: outboundPolicy(deps.config, deps.log) };
  const codeVerifier = flow.code_verifier
    ? String(openCredentials(configuredCredentialsKey(deps.config), flow.code_verifier).verifier)
    : undefined;
  let tokens: OAuthTokens;
  try {
    tokens = await target.oauthApp.exchangeCode(ctx, {
      code: query.code,
      redirectUri: connectCallbackUrl(deps.config, platform),
      ...(codeVerifier ? { codeVerifier } : {}),
    });
  } catch (err) {
    deps.log?.warn({ platform, reason: messageOf(err) }, 'connect: the code exchange failed');
    throw new ConnectFailed('token_exchange_failed', `${platform} did not give the tokens.`);
  }
  try {
    return await connectWithTokens(
      deps.pool,
      deps.config,
      {
        accountId: flow.account_id,
        brandId: flow.brand_id,
        platform,
        credentials: tokens,
      },
      { apps: deps.apps, log: deps.log },
    );
  } catch (err) {
    // Only the platform's refusal is the person's to hear about; anything else (the database)
    // is ours, and goes on as it is.
    if (!(err instanceof DomainError && err.code === 'credentials_refused')) throw err;
    deps.log?.warn({ platform, reason: messageOf(err) }, 'connect: the identity call failed');
    throw new ConnectFailed('identity_failed', `${platform} would not name the account.`);
  }
}

/** An error's message, cut short: what a log line may say of a platform's refusal. */
const messageOf = (err: unknown) =>
  (err instanceof Error ? err.message : String(err)).slice(0, 300);
