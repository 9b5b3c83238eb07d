// The connected platform accounts of a brand and every platform's state for it: the accounts
// page lists them and connects one (an OAuth platform through its authorize page), the composer
// warns of a platform without a working one.
import { useQuery } from '@tanstack/react-query';
import type { ConnectErrorCode } from '../../core/connectFlows/schema.ts';
import type {
  ChosenFacebookPage,
  ConnectedAccount,
  FacebookPages,
  PlatformState,
} from '../../core/connections/schema.ts';
import { call } from './api.ts';

// Plain data (no imports), so the one table of names reaches the bundle as it is.
export { PLATFORM_NAMES } from '../../core/kernel/platformNames.ts';
export type { ConnectedAccount, FacebookPages, PlatformState };

export const ACCOUNT_KEYS = {
  all: ['accounts'],
  ofBrand: (brandId: string | undefined) => ['accounts', brandId],
  platformsOf: (brandId: string | undefined) => ['accounts', 'platforms', brandId],
  facebookPagesOf: (connectionId: string | undefined) => ['accounts', 'pages', connectionId],
};

export function useConnectedAccounts(brandId: string | undefined) {
  return useQuery({
    queryKey: ACCOUNT_KEYS.ofBrand(brandId),
    queryFn: () => call<ConnectedAccount[]>('GET', `/app/api/accounts?brand_id=${brandId}`),
    enabled: !!brandId,
  });
}

/** Every platform with the brand's state on it. */
export function usePlatformStates(brandId: string | undefined) {
  return useQuery({
    queryKey: ACCOUNT_KEYS.platformsOf(brandId),
    queryFn: () => call<PlatformState[]>('GET', `/app/api/platforms?brand_id=${brandId}`),
    enabled: !!brandId,
  });
}

/** The Pages a Facebook connection's user manages, and the one it publishes as. */
export function useFacebookPages(connectionId: string | undefined) {
  return useQuery({
    queryKey: ACCOUNT_KEYS.facebookPagesOf(connectionId),
    queryFn: () => call<FacebookPages>('GET', `/app/api/accounts/${connectionId}/pages`),
    enabled: !!connectionId,
    // A 409 (no user token) or a 404 will not change by asking again.
    retry: false,
  });
}

/** Makes the Facebook connection publish as another of its user's Pages. */
export const chooseFacebookPage = (connectionId: string, pageId: string) =>
  call<ChosenFacebookPage>('PUT', `/app/api/accounts/${connectionId}/page`, { page_id: pageId });

/** Starts an OAuth platform's connect flow: the platform's authorize page to open. */
export const startConnect = (platform: string, brandId: string) =>
  call<{ authorize_url: string }>('POST', `/app/api/connections/${platform}/authorize`, {
    brand_id: brandId,
  });

/**
 * What the Accounts page says of a callback's `connect_error`: a code of the service's, so a
 * link someone crafted cannot put words of theirs on the page (an unknown code reads as the
 * last line).
 */
export const CONNECT_ERROR_TEXT: Record<ConnectErrorCode, string> = {
  access_denied: 'Access was declined on the platform, so nothing was connected.',
  platform_error: 'The platform answered with an error; try connecting again.',
  session_required: 'Your session ended before the platform sent you back; connect again.',
  invalid_state: 'That connection link is unknown or was used already; connect again.',
  expired: 'The connection took more than 10 minutes; connect again.',
  not_configured: "The operator's app for this platform is not set up here.",
  token_exchange_failed: 'The platform did not give access; connect again.',
  identity_failed: 'The platform did not say which account this is; connect again.',
  failed: 'The connection did not complete; connect again.',
};
