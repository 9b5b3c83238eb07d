// Every platform of the selected brand with its state: connected (its handle, and "reconnect
// by …" a week before it expires), needs reconnecting (the last error, and Reconnect, which
// keeps the connection and its posts), not connected ("Connect X": the platform's authorize
// page, back here with the account), or waiting for the operator's app variables. Bluesky and
// Mastodon connect with their fields, checked with the platform as the operator CLI does. A
// platform this version connects but does not publish to says so, and one that fetches media
// from PUBLIC_BASE_URL says when that address is not reachable from the internet. Facebook
// says the Page it publishes as and, when its user manages several, lets the person choose.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import {
  ACCOUNT_KEYS,
  CONNECT_ERROR_TEXT,
  chooseFacebookPage,
  PLATFORM_NAMES,
  type PlatformState,
  startConnect,
  useConnectedAccounts,
  useFacebookPages,
  usePlatformStates,
} from '../accounts.ts';
import { ApiError, asApiError, call } from '../api.ts';
import { useBrand } from '../brand.ts';

const FIELDS = {
  bluesky: [
    ['service', 'PDS address', 'https://bsky.social'],
    ['identifier', 'Handle or DID', ''],
    ['app_password', 'App password', ''],
  ],
  mastodon: [
    ['instance', 'Instance address', 'https://mastodon.social'],
    ['access_token', 'Access token', ''],
  ],
} as const;

const nameOf = (platform: string) =>
  PLATFORM_NAMES[platform as keyof typeof PLATFORM_NAMES] ?? platform;
const day = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/**
 * What the platform's callback sent the browser back with (?connected= or ?connect_error=).
 * Only words of ours reach the page: a platform that is not one of ours, in a link someone
 * crafted, says nothing.
 */
function callbackOutcome(): { ok: boolean; text: string } | undefined {
  const q = new URLSearchParams(window.location.search);
  const known = (p: string | null) => (p && Object.hasOwn(PLATFORM_NAMES, p) ? nameOf(p) : null);
  const connected = known(q.get('connected'));
  if (connected) return { ok: true, text: `${connected} is connected.` };
  const code = q.get('connect_error');
  if (!code) return undefined;
  const text =
    CONNECT_ERROR_TEXT[code as keyof typeof CONNECT_ERROR_TEXT] ?? CONNECT_ERROR_TEXT.failed;
  const platform = known(q.get('platform'));
  return { ok: false, text: platform ? `${platform}: ${text}` : text };
}

export function Accounts() {
  const { session, brand } = useBrand();
  const queries = useQueryClient();
  const [platform, setPlatform] = useState<keyof typeof FIELDS>('mastodon');
  const [error, setError] = useState<ApiError>();
  const [outcome] = useState(callbackOutcome);
  const platforms = usePlatformStates(brand?.id);
  const accounts = useConnectedAccounts(brand?.id);
  const connect = useMutation({
    mutationFn: (config: Record<string, string>) =>
      call('POST', '/app/api/accounts', { brand_id: brand!.id, platform, config }),
    onSuccess: () => queries.invalidateQueries({ queryKey: ACCOUNT_KEYS.all }),
    onError: (err) => setError(err instanceof ApiError ? err : undefined),
  });
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(undefined);
    const form = new FormData(e.currentTarget);
    connect.mutate(
      Object.fromEntries(FIELDS[platform].map(([name]) => [name, String(form.get(name) ?? '')])),
    );
  };
  return (
    <section aria-labelledby="accounts-title">
      <h1 id="accounts-title">Connected accounts</h1>
      {outcome && (
        <p className={outcome.ok ? 'notice ok' : 'notice error'} role="status">
          {outcome.text}
        </p>
      )}
      <ul className="accounts">
        {platforms.data?.map((p) => (
          <PlatformCard
            key={p.platform}
            state={p}
            brandId={brand!.id}
            connectionId={accounts.data?.find((a) => a.platform === p.platform)?.id}
            onForm={() => {
              setPlatform(p.platform as keyof typeof FIELDS);
              document.getElementById('platform')?.focus();
            }}
          />
        ))}
      </ul>
      <form onSubmit={submit} className="card" noValidate>
        <h2>Connect Bluesky or Mastodon</h2>
        <label htmlFor="platform">Platform</label>
        <select
          id="platform"
          value={platform}
          onChange={(e) => setPlatform(e.target.value as keyof typeof FIELDS)}
        >
          <option value="mastodon">Mastodon</option>
          <option value="bluesky">Bluesky</option>
        </select>
        {FIELDS[platform].map(([name, label, placeholder]) => (
          <div key={`${platform}-${name}`} className="field">
            <label htmlFor={name}>{label}</label>
            <input
              id={name}
              name={name}
              type={name === 'app_password' || name === 'access_token' ? 'password' : 'text'}
              defaultValue={placeholder}
              autoComplete="off"
            />
          </div>
        ))}
        {error && (
          <p className="error" role="alert">
            {error.message}
          </p>
        )}
        <button type="submit" disabled={connect.isPending}>
          {connect.isPending ? 'Checking with the platform…' : 'Connect'}
        </button>
      </form>
    </section>
  );
}

/** One platform: its state, and what connecting (or reconnecting) it takes. */
function PlatformCard({
  state: p,
  brandId,
  connectionId,
  onForm,
}: {
  state: PlatformState;
  brandId: string;
  /** The brand's connection on the platform, if it has one. */
  connectionId: string | undefined;
  onForm: () => void;
}) {
  const [error, setError] = useState<string>();
  const authorize = useMutation({
    mutationFn: () => startConnect(p.platform, brandId),
    // The platform's page; it sends the browser back to /connect/{platform}/callback.
    onSuccess: ({ authorize_url }) => window.location.assign(authorize_url),
    onError: (err) => setError(asApiError(err).message),
  });
  const name = nameOf(p.platform);
  const linked = p.state === 'connected' || p.state === 'needs_reconnect';
  const action = linked ? `Reconnect ${name}` : `Connect ${name}`;
  return (
    <li className="card" aria-label={name}>
      <strong>{name}</strong> {p.handle}{' '}
      <span
        className={p.state === 'connected' ? 'ok' : p.state === 'needs_reconnect' ? 'error' : ''}
      >
        {p.state === 'connected'
          ? 'active'
          : p.state === 'needs_reconnect'
            ? 'needs reconnecting'
            : p.state === 'not_connected'
              ? 'not connected'
              : 'not set up'}
      </span>
      {p.expires_at && p.state === 'connected' && (
        <p className={p.reconnect_soon ? 'notice' : 'meta'}>
          {p.reconnect_soon
            ? `Expires ${day(p.expires_at)}: reconnect by then.`
            : `Works until ${day(p.expires_at)}.`}
        </p>
      )}
      {!p.publishes && (
        <p className="notice">
          Publishing to {name} is not built yet: its posts are saved but will fail when due.
        </p>
      )}
      {p.media_warning && (
        <p className="notice" role="note">
          {name} fetches media from this service: {p.media_warning}
        </p>
      )}
      {p.last_error && <p className="meta">{p.last_error}</p>}
      {p.platform === 'facebook' && p.state === 'connected' && connectionId && (
        <FacebookPageChoice connectionId={connectionId} handle={p.handle} />
      )}
      {p.state === 'not_configured' ? (
        <p className="meta">
          To connect {name}, the operator sets <code>{p.variables[0]}</code> and{' '}
          <code>{p.variables[1]}</code> (the app registered with {name}), then restarts the service.
        </p>
      ) : p.connect === 'oauth' ? (
        // Reconnecting is always offered: it renews a connection's grant (a Facebook connection
        // the CLI made with a Page token gets the user token that lists the Pages), keeping it.
        <p>
          <button
            type="button"
            className={p.state === 'connected' && !p.reconnect_soon ? 'quiet' : undefined}
            onClick={() => authorize.mutate()}
            disabled={authorize.isPending}
          >
            {authorize.isPending ? `Opening ${name}…` : action}
          </button>
        </p>
      ) : p.connect === 'form' ? (
        p.state !== 'connected' && (
          <p>
            <button type="button" className="quiet" onClick={onForm}>
              {action} with the form below
            </button>
          </p>
        )
      ) : (
        p.state !== 'connected' && (
          <p className="meta">This version connects {name} with the operator CLI's connect.</p>
        )
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

/**
 * The Page a Facebook connection publishes as and, when its user manages more than one, the
 * choice of another (its token is fetched and stored by the service; the connection stays).
 */
function FacebookPageChoice({
  connectionId,
  handle,
}: {
  connectionId: string;
  handle: string | null;
}) {
  const queries = useQueryClient();
  const pages = useFacebookPages(connectionId);
  const [chosen, setChosen] = useState<string>();
  const [error, setError] = useState<string>();
  const choose = useMutation({
    mutationFn: (pageId: string) => chooseFacebookPage(connectionId, pageId),
    onSuccess: () => {
      setError(undefined);
      return queries.invalidateQueries({ queryKey: ACCOUNT_KEYS.all });
    },
    onError: (err) => setError(asApiError(err).message),
  });
  const list = pages.data?.pages ?? [];
  const current = list.find((page) => page.id === pages.data?.page_id)?.name ?? handle;
  const selected = chosen ?? pages.data?.page_id ?? list[0]?.id ?? '';
  const selectId = `facebook-page-${connectionId}`;
  return (
    <div>
      {current && <p>Publishing as {current}</p>}
      {pages.isError && <p className="meta">{asApiError(pages.error).message}</p>}
      {list.length > 1 && (
        <form
          className="field"
          onSubmit={(e) => {
            e.preventDefault();
            setError(undefined);
            choose.mutate(selected);
          }}
        >
          <label htmlFor={selectId}>Facebook Page to publish as</label>
          <select id={selectId} value={selected} onChange={(e) => setChosen(e.target.value)}>
            {list.map((page) => (
              <option key={page.id} value={page.id}>
                {page.name}
              </option>
            ))}
          </select>{' '}
          <button type="submit" disabled={choose.isPending || selected === pages.data?.page_id}>
            {choose.isPending ? 'Switching Page…' : 'Use this Page'}
          </button>
        </form>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
