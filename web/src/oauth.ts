// The apps signed in by OAuth: those the account allowed, and the consent page's view of one
// asking to.
import { useQuery } from '@tanstack/react-query';
import type { AuthorizedClient, ConsentView } from '../../core/oauth/schema.ts';
import { call } from './api.ts';
import { useSession } from './session.ts';

export type { AuthorizedClient, ConsentView };

export const OAUTH_KEYS = {
  clients: ['oauth-clients'],
  consent: (uid: string) => ['consent', uid],
};

export function useAuthorizedApps() {
  const session = useSession();
  return useQuery({
    queryKey: OAUTH_KEYS.clients,
    queryFn: () => call<AuthorizedClient[]>('GET', '/app/api/oauth/clients'),
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
