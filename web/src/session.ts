// The signed-in session, read once and shared by every page (null: nobody is signed in).
import { useQuery } from '@tanstack/react-query';
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
