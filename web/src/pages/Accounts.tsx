// Connected accounts of the selected brand: each with its health (a revoked credential shows
// needs_reconnect and its last error), and connecting Bluesky or Mastodon with the same check
// as the operator CLI (the platform is asked before anything is stored); reconnecting is
// connecting again.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ACCOUNT_KEYS, useConnectedAccounts } from '../accounts.ts';
import { ApiError, call } from '../api.ts';
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

export function Accounts() {
  const { session, brand } = useBrand();
  const queries = useQueryClient();
  const [platform, setPlatform] = useState<keyof typeof FIELDS>('mastodon');
  const [error, setError] = useState<ApiError>();
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
      {accounts.data && !accounts.data.length && (
        <p className="empty">
          Nothing connected yet: connect an account below, and posts can go out there.
        </p>
      )}
      <ul className="accounts">
        {accounts.data?.map((a) => (
          <li key={a.id} className="card">
            <strong>{a.platform}</strong> {a.handle}{' '}
            <span className={a.status === 'active' ? 'ok' : 'error'}>
              {a.status === 'active' ? 'active' : 'needs reconnecting'}
            </span>
            {a.last_error && <p className="meta">{a.last_error}</p>}
          </li>
        ))}
      </ul>
      <form onSubmit={submit} className="card" noValidate>
        <h2>Connect an account</h2>
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
