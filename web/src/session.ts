// The signed-in session, read once and shared by every page (null: nobody is signed in).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { ApiError, call, type Session, setCsrfToken } from './api.ts';

export const SESSION_KEY = ['session'];

export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async () => {
      try {
        const session = await call<Session>('GET', '/app/api/session');
        setCsrfToken(session.csrf_token);
        return session;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
  });
}

/** Whether the service offers sign-up now (SIGNUP), for the sign-in and sign-up pages. */
export function useSignupAllowed() {
  return useQuery({
    queryKey: ['signup'],
    queryFn: () => call<{ allowed: boolean }>('GET', '/app/api/signup'),
  });
}

/**
 * What signing in or up does next: forget what another account's session read, then go back
 * where it was asked from (an app's consent page, `?next=`) or to the board.
 */
export function useEnterDashboard(from: '/sign-in' | '/sign-up') {
  const queries = useQueryClient();
  const navigate = useNavigate();
  const { next } = useSearch({ from });
  return async () => {
    queries.clear();
    if (next) window.location.assign(next);
    else await navigate({ to: '/board' });
  };
}
