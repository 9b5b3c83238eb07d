// Every platform with where a brand stands on it: list_accounts' `platforms` and the Accounts
// page. A connection, where there is one, says its health and expiry; an OAuth platform
// without one is not_configured until the operator sets its app credentials. A platform this
// version connects but does not publish to says so (`publishes: false`); one that fetches media
// from PUBLIC_BASE_URL warns when that address is not reachable from the internet.
import type { Config } from '../config.ts';
import type { OAuthApps } from '../connectors/schema.ts';
import { PLATFORM_NAMES, PLATFORMS } from '../kernel/platformNames.ts';
import { FETCHES_MEDIA, publishes } from '../kernel/platforms.ts';
import { publicBaseUnreachable } from '../outbound/publicBase.ts';
import { isOAuthPlatform } from '../platformApps.ts';
import type { ConnectedAccount, PlatformState } from './schema.ts';

/** Each of the brands' platforms, brand by brand, from their connections. */
export function platformStates(
  config: Pick<Config, 'platformApps' | 'publicBaseUrl'>,
  apps: OAuthApps,
  brandIds: readonly string[],
  connections: readonly ConnectedAccount[],
): PlatformState[] {
  const unreachable = publicBaseUnreachable(config.publicBaseUrl);
  const fetchesMedia = new Set<string>(FETCHES_MEDIA);
  return brandIds.flatMap((brandId) =>
    PLATFORMS.map((platform): PlatformState => {
      const c = connections.find((a) => a.brand_id === brandId && a.platform === platform);
      const oauth = isOAuthPlatform(platform);
      const app = oauth ? config.platformApps[platform] : undefined;
      const configured = !app || Boolean(app.clientId && app.clientSecret);
      const connect = !oauth ? 'form' : apps[platform] && configured ? 'oauth' : 'cli';
      const state = c
        ? c.status === 'active'
          ? 'connected'
          : 'needs_reconnect'
        : configured
          ? 'not_connected'
          : 'not_configured';
      return {
        brand_id: brandId,
        platform,
        state,
        name: PLATFORM_NAMES[platform],
        publishes: publishes(platform),
        connect,
        handle: c?.handle ?? null,
        expires_at: c?.expires_at ?? null,
        reconnect_soon: c?.reconnect_soon ?? false,
        last_error: c?.last_error ?? null,
        variables: configured ? [] : [...app!.clientVars],
        media_warning: fetchesMedia.has(platform) ? unreachable : null,
      };
    }),
  );
}
