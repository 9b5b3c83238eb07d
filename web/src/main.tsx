// The dashboard: React with TanStack Router and Query, talking only to this origin.
import '@fontsource/inter/400.css';
import '@fontsource/inter/600.css';
import './styles.css';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api.ts';
import { RETRY_DEFAULTS } from './pacing.ts';
import { router } from './routes.tsx';
import { SESSION_KEY } from './session.ts';

/**
 * Any call that finds the session gone (401) shows the sign-in page; one refused for a stale
 * CSRF token (the session was renewed in another tab) reads the session, and its token, again.
 * One refused because the account's request budget is spent waits its Retry-After and goes
 * again (RETRY_DEFAULTS) before any error shows.
 */
const onError = (err: unknown) => {
  if (!(err instanceof ApiError)) return;
  if (err.status === 401) queries.setQueryData(SESSION_KEY, null);
  else if (err.code === 'csrf_required') void queries.invalidateQueries({ queryKey: SESSION_KEY });
};

const queries: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: { ...RETRY_DEFAULTS.queries, refetchOnWindowFocus: false },
    mutations: RETRY_DEFAULTS.mutations,
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
