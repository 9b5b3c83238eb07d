// The apps signed in by OAuth: those the account allowed, and the consent page's view of one
// asking to.
import { useQuery } from '@tanstack/react-query';
import { call } from './api.ts';
import { useSession } from './session.ts';

export type AuthorizedApp = {
  grant_id: string;
  client_id: string;
  client_name: string | null;
  brand_id: string | null;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
};

export type ConsentView = {
  client_id: string;
  client_name: string | null;
  redirect_host: string;
  registered_at: string | null;
  warning: string | null;
  scopes: { name: string; meaning: string }[];
  brands: { id: string; name: string }[];
  brand_id: string | null;
};

export const OAUTH_KEYS = {
  clients: ['oauth-clients'],
  consent: (uid: string) => ['consent', uid],
};

export function useAuthorizedApps() {
  const session = useSession();
  return useQuery({
    queryKey: OAUTH_KEYS.clients,
    queryFn: () => call<AuthorizedApp[]>('GET', '/app/api/oauth/clients'),
    enabled: !!session.data,
  });
}

/** What an app signing in asks for (read without a dashboard session: a 401 says sign in). */
export function useConsent(uid: string) {
  return useQuery({
    queryKey: OAUTH_KEYS.consent(uid),
    queryFn: () => call<ConsentView>('GET', `/oauth/consent/${uid}/details`),
  });
}
