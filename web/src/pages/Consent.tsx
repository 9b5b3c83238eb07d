// The consent page of an app signing in by OAuth (an MCP client): which app, where it will
// send you back, what it asks for (untick any scope), which brand its calls default to; then
// allow or deny. Not signed in: the sign-in page first, and back here.
import { useMutation } from '@tanstack/react-query';
import { Navigate, useParams } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { ApiError, call } from '../api.ts';
import { LoadError } from '../components.tsx';
import { useConsent } from '../oauth.ts';
import { longDate } from '../time.ts';

export function Consent() {
  const { uid } = useParams({ from: '/oauth/consent/$uid' });
  const view = useConsent(uid);
  const [scopes, setScopes] = useState<string[]>();
  const [brand, setBrand] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (view.data && scopes === undefined) {
      setScopes(view.data.scopes.map((s) => s.name));
      setBrand(view.data.brand_id ?? undefined);
    }
  }, [view.data, scopes]);
  const decide = useMutation({
    mutationFn: (allow: boolean) =>
      call<{ redirect_to: string }>('POST', `/oauth/consent/${uid}/decision`, {
        allow,
        scopes: allow ? scopes : [],
        ...(allow && brand ? { brand_id: brand } : {}),
      }),
    // Back to the app, through the authorization server (a code, or access_denied).
    onSuccess: ({ redirect_to }) => window.location.assign(redirect_to),
    onError: (err) => setError(err instanceof Error ? err.message : String(err)),
  });
  if (view.error instanceof ApiError && view.error.status === 401)
    return <Navigate to="/sign-in" search={{ next: `/oauth/consent/${uid}` }} replace />;
  if (view.isPending) return <p role="status">Loading…</p>;
  if (!view.data) return <LoadError error={view.error} what="sign-in request" />;
  const v = view.data;
  const name = v.client_name ?? 'An app';
  return (
    <section aria-labelledby="consent-title" className="card narrow">
      <h1 id="consent-title">Allow {name} to use your account?</h1>
      <dl className="facts">
        <dt>App</dt>
        <dd>
          {name} <code>{v.client_id}</code>
        </dd>
        <dt>Sends you back to</dt>
        <dd>{v.redirect_host}</dd>
        {v.registered_at && (
          <>
            <dt>Registered</dt>
            <dd>{longDate(v.registered_at, Intl.DateTimeFormat().resolvedOptions().timeZone)}</dd>
          </>
        )}
      </dl>
      {v.warning && (
        <p className="notice" role="alert">
          {v.warning}
        </p>
      )}
      <fieldset>
        <legend>It may</legend>
        {v.scopes.map((s) => (
          <label key={s.name} className="choice">
            <input
              type="checkbox"
              checked={scopes?.includes(s.name) ?? true}
              onChange={(e) =>
                setScopes(
                  e.target.checked
                    ? [...(scopes ?? []), s.name]
                    : (scopes ?? []).filter((x) => x !== s.name),
                )
              }
            />
            <span>
              <strong>{s.name}</strong>: {s.meaning}
            </span>
          </label>
        ))}
      </fieldset>
      <label htmlFor="consent-brand">Its calls work on the brand</label>
      <select id="consent-brand" value={brand ?? ''} onChange={(e) => setBrand(e.target.value)}>
        {v.brands.map((b) => (
          <option key={b.id} value={b.id}>
            {b.name}
          </option>
        ))}
      </select>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button
          type="button"
          disabled={decide.isPending || !scopes?.length}
          onClick={() => {
            setError(undefined);
            decide.mutate(true);
          }}
        >
          Allow
        </button>
        <button
          type="button"
          className="quiet"
          disabled={decide.isPending}
          onClick={() => decide.mutate(false)}
        >
          Deny
        </button>
      </div>
      <p className="hint">You can revoke it any time under Apps.</p>
    </section>
  );
}
