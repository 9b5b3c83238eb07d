// The dashboard's pages and their addresses (api/web.ts serves index.html at each of them).

import { useQueryClient } from '@tanstack/react-query';
import {
  createRootRoute,
  createRoute,
  createRouter,
  Link,
  Navigate,
  Outlet,
  useNavigate,
} from '@tanstack/react-router';
import { call } from './api.ts';
import { Board } from './pages/Board.tsx';
import { Calendar } from './pages/Calendar.tsx';
import { Compose } from './pages/Compose.tsx';
import { Keys } from './pages/Keys.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { SignUp } from './pages/SignUp.tsx';
import { Webhooks } from './pages/Webhooks.tsx';
import { SESSION_KEY, useSession } from './session.ts';

function Shell() {
  const session = useSession();
  const queries = useQueryClient();
  const navigate = useNavigate();
  const signOut = async () => {
    await call('POST', '/auth/logout');
    queries.setQueryData(SESSION_KEY, null);
    await navigate({ to: '/sign-in' });
  };
  return (
    <>
      <header className="top">
        <Link to="/" className="brand-mark">
          Social publishing
        </Link>
        {session.data && (
          <nav aria-label="Main">
            <Link to="/board">Board</Link>
            <Link to="/compose">Compose</Link>
            <Link to="/calendar">Calendar</Link>
            <Link to="/settings/keys">API keys</Link>
            <Link to="/settings/webhooks">Webhooks</Link>
            <span className="who">{session.data.account.email}</span>
            <button type="button" className="quiet" onClick={signOut}>
              Sign out
            </button>
          </nav>
        )}
      </header>
      <main>
        <Outlet />
      </main>
    </>
  );
}

/** `/`: the board when signed in, else the sign-in page. */
function Home() {
  const session = useSession();
  if (session.isPending) return <p role="status">Loading…</p>;
  return <Navigate to={session.data ? '/board' : '/sign-in'} replace />;
}

const root = createRootRoute({ component: Shell });
const routeTree = root.addChildren([
  createRoute({ getParentRoute: () => root, path: '/', component: Home }),
  createRoute({ getParentRoute: () => root, path: '/sign-in', component: SignIn }),
  createRoute({ getParentRoute: () => root, path: '/sign-up', component: SignUp }),
  createRoute({ getParentRoute: () => root, path: '/board', component: Board }),
  createRoute({ getParentRoute: () => root, path: '/compose', component: Compose }),
  createRoute({ getParentRoute: () => root, path: '/calendar', component: Calendar }),
  createRoute({ getParentRoute: () => root, path: '/settings/keys', component: Keys }),
  createRoute({ getParentRoute: () => root, path: '/settings/webhooks', component: Webhooks }),
]);

export const router = createRouter({ routeTree });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
