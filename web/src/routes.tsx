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
  useRouterState,
} from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import { call } from './api.ts';
import { dismissNotices, useNotices } from './notices.ts';
import { Accounts } from './pages/Accounts.tsx';
import { Analytics } from './pages/Analytics.tsx';
import { AuthorizedApps } from './pages/AuthorizedApps.tsx';
import { Board } from './pages/Board.tsx';
import { Calendar } from './pages/Calendar.tsx';
import { Competitors } from './pages/Competitors.tsx';
import { Compose } from './pages/Compose.tsx';
import { Consent } from './pages/Consent.tsx';
import { DesignPage } from './pages/DesignPage.tsx';
import { Designs } from './pages/Designs.tsx';
import { DrawingPage } from './pages/DrawingPage.tsx';
import { Drawings } from './pages/Drawings.tsx';
import { Jobs } from './pages/Jobs.tsx';
import { Keys } from './pages/Keys.tsx';
import { Media } from './pages/Media.tsx';
import { PostPage } from './pages/PostPage.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { SignUp } from './pages/SignUp.tsx';
import { UsagePage } from './pages/Usage.tsx';
import { Webhooks } from './pages/Webhooks.tsx';
import { SESSION_KEY, useSession } from './session.ts';

/** The selected brand: every page shows that brand's posts and accounts. */
function BrandSwitch() {
  const session = useSession();
  const queries = useQueryClient();
  const brands = session.data?.brands ?? [];
  if (brands.length < 2) return null;
  const select = async (brandId: string) => {
    await call('PUT', '/app/api/session/brand', { brand_id: brandId });
    await queries.invalidateQueries();
  };
  return (
    <label className="brand-switch">
      Brand{' '}
      <select
        value={session.data?.selected_brand_id ?? ''}
        onChange={(e) => void select(e.target.value)}
      >
        {brands.map((b) => (
          <option key={b.id} value={b.id}>
            {b.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Each page's title, for the tab and for a screen reader told the page changed. */
const TITLES: Record<string, string> = {
  '/sign-in': 'Sign in',
  '/sign-up': 'Sign up',
  '/board': 'Posts',
  '/compose': 'Compose',
  '/calendar': 'Calendar',
  '/settings/keys': 'API keys',
  '/settings/webhooks': 'Webhooks',
  '/settings/accounts': 'Connected accounts',
  '/analytics': 'Analytics',
  '/settings/competitors': 'Competitors',
  '/media': 'Media library',
  '/designs': 'Designs',
  '/drawings': 'Drawings',
  '/jobs': 'Jobs',
  '/usage': 'Usage',
  '/settings/apps': 'Authorized apps',
};
/** Pages under a collection: /posts/12 is a Post. */
const ITEM_TITLES: [string, string][] = [
  ['/posts/', 'Post'],
  ['/designs/', 'Design'],
  ['/drawings/', 'Drawing'],
  ['/oauth/consent/', 'Allow an app'],
];

function Shell() {
  const session = useSession();
  const path = useRouterState({ select: (s) => s.location.pathname });
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // A new page: its title, and the focus at its start (a client-side move says nothing else).
  useEffect(() => {
    const name = TITLES[path] ?? ITEM_TITLES.find(([prefix]) => path.startsWith(prefix))?.[1];
    document.title = name ? `${name} · Social publishing` : 'Social publishing';
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [path]);
  const queries = useQueryClient();
  const navigate = useNavigate();
  const signOut = async () => {
    await call('POST', '/auth/logout');
    // What this account's pages read is forgotten with its session.
    queries.clear();
    dismissNotices();
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
            <Link to="/media">Media</Link>
            <Link to="/designs">Designs</Link>
            <Link to="/drawings">Drawings</Link>
            <Link to="/analytics">Analytics</Link>
            <Link to="/settings/competitors">Competitors</Link>
            <Link to="/settings/keys">API keys</Link>
            <Link to="/settings/webhooks">Webhooks</Link>
            <Link to="/settings/accounts">Accounts</Link>
            <Link to="/settings/apps">Apps</Link>
            <Link to="/jobs">Jobs</Link>
            <Link to="/usage">Usage</Link>
            <BrandSwitch />
            <span className="who">{session.data.account.email}</span>
            <button type="button" className="quiet" onClick={signOut}>
              Sign out
            </button>
          </nav>
        )}
      </header>
      <main ref={main} tabIndex={-1}>
        <Notices />
        <Outlet />
      </main>
    </>
  );
}

/** Warnings raised by a page that moved on (a post saved for a platform not connected). */
function Notices() {
  const notices = useNotices();
  if (!notices.length) return null;
  return (
    <div className="notice notices" role="status">
      {notices.map((text) => (
        <p key={text}>{text}</p>
      ))}
      <p>
        <Link to="/settings/accounts">Connect accounts</Link>{' '}
        <button type="button" className="quiet" onClick={dismissNotices}>
          Dismiss
        </button>
      </p>
    </div>
  );
}

/** `/`: the board when signed in, else the sign-in page. */
function Home() {
  const session = useSession();
  if (session.isPending) return <p role="status">Loading…</p>;
  return <Navigate to={session.data ? '/board' : '/sign-in'} replace />;
}

/** ?next=/oauth/consent/…: back to an app's consent page after signing in or up (our own
 * paths only, never a site elsewhere). */
const backToConsent = (search: Record<string, unknown>): { next?: string } =>
  typeof search.next === 'string' && /^\/oauth\/consent\/[\w-]{1,100}$/.test(search.next)
    ? { next: search.next }
    : {};

const root = createRootRoute({ component: Shell });
const routeTree = root.addChildren([
  createRoute({ getParentRoute: () => root, path: '/', component: Home }),
  createRoute({
    getParentRoute: () => root,
    path: '/sign-in',
    component: SignIn,
    // ?next=/oauth/consent/…: back to the app's consent page (our own paths only, never a
    // site elsewhere).
    validateSearch: backToConsent,
  }),
  createRoute({ getParentRoute: () => root, path: '/oauth/consent/$uid', component: Consent }),
  createRoute({ getParentRoute: () => root, path: '/settings/apps', component: AuthorizedApps }),
  createRoute({
    getParentRoute: () => root,
    path: '/sign-up',
    component: SignUp,
    validateSearch: backToConsent,
  }),
  createRoute({ getParentRoute: () => root, path: '/board', component: Board }),
  createRoute({ getParentRoute: () => root, path: '/compose', component: Compose }),
  createRoute({
    getParentRoute: () => root,
    path: '/calendar',
    component: Calendar,
    // ?week=YYYY-MM-DD: the week of that day (anything else: this week).
    validateSearch: (search: Record<string, unknown>): { week?: string } =>
      typeof search.week === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(search.week)
        ? { week: search.week }
        : {},
  }),
  createRoute({ getParentRoute: () => root, path: '/settings/keys', component: Keys }),
  createRoute({ getParentRoute: () => root, path: '/settings/webhooks', component: Webhooks }),
  createRoute({ getParentRoute: () => root, path: '/settings/accounts', component: Accounts }),
  createRoute({ getParentRoute: () => root, path: '/posts/$postId', component: PostPage }),
  createRoute({ getParentRoute: () => root, path: '/analytics', component: Analytics }),
  createRoute({ getParentRoute: () => root, path: '/media', component: Media }),
  createRoute({ getParentRoute: () => root, path: '/designs', component: Designs }),
  createRoute({ getParentRoute: () => root, path: '/designs/$designId', component: DesignPage }),
  createRoute({ getParentRoute: () => root, path: '/drawings', component: Drawings }),
  createRoute({ getParentRoute: () => root, path: '/drawings/$drawingId', component: DrawingPage }),
  createRoute({ getParentRoute: () => root, path: '/jobs', component: Jobs }),
  createRoute({ getParentRoute: () => root, path: '/usage', component: UsagePage }),
  createRoute({
    getParentRoute: () => root,
    path: '/settings/competitors',
    component: Competitors,
  }),
]);

export const router = createRouter({ routeTree });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
