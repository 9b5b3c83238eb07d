// API keys: create one with its scopes (the key is shown once, here, and never again), the
// list with each key's last use, and delete (the key fails on its very next request).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError, call } from '../api.ts';
import { APIKEY_KEYS, type ApiKeyCreated, useApiKeys } from '../apikeys.ts';
import { useBrand } from '../brand.ts';
import { CheckboxGroup, PlanNotice } from '../components.tsx';
import { longDate } from '../time.ts';

const SCOPES = ['read', 'publish', 'media', 'generate', 'engage'] as const;
export function Keys() {
  const { session, timeZone } = useBrand();
  const queries = useQueryClient();
  const [scopes, setScopes] = useState<string[]>(['read']);
  const [shown, setShown] = useState<ApiKeyCreated>();
  const [error, setError] = useState<ApiError>();
  const keys = useApiKeys();
  const create = useMutation({
    mutationFn: (name: string) => call<ApiKeyCreated>('POST', '/app/api/apikeys', { name, scopes }),
    onSuccess: (made) => {
      setShown(made);
      void queries.invalidateQueries({ queryKey: APIKEY_KEYS.all });
    },
    onError: (err) => setError(err instanceof ApiError ? err : undefined),
  });
  const remove = useMutation({
    mutationFn: (id: string) => call('DELETE', `/app/api/apikeys/${id}`),
    onSuccess: () => queries.invalidateQueries({ queryKey: APIKEY_KEYS.all }),
  });
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  const plan = session.data.account.plan;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(undefined);
    setShown(undefined);
    create.mutate(String(new FormData(e.currentTarget).get('name') ?? ''));
  };
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <PlanNotice plan={plan} what="Keys work with the REST API, GraphQL and MCP" />
      <form onSubmit={submit} className="card" noValidate>
        <label htmlFor="key-name">Name</label>
        <input id="key-name" name="name" maxLength={100} />
        <CheckboxGroup
          legend="Scopes"
          options={SCOPES}
          value={scopes}
          onChange={setScopes}
          error={error?.fields.scopes}
        />
        {error && !Object.keys(error.fields).length && (
          <p className="error" role="alert">
            {error.message}
          </p>
        )}
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
      {shown && (
        <div className="card secret" role="status">
          <p>
            Your new key <strong>{shown.name || shown.id}</strong>. Copy it now: it is not shown
            again.
          </p>
          <code data-testid="new-key">{shown.key}</code>
        </div>
      )}
      {keys.data && !keys.data.length && (
        <p className="empty">No keys yet: create one above for your scripts or an MCP client.</p>
      )}
      <table className="list">
        <caption className="visually-hidden">Your API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.map((k) => (
            <tr key={k.id}>
              <td>{k.name || `key ${k.id}`}</td>
              <td>{k.scopes.join(', ')}</td>
              <td>{longDate(k.created_at, timeZone)}</td>
              <td>{k.last_used_at ? longDate(k.last_used_at, timeZone) : 'never'}</td>
              <td>
                <button
                  type="button"
                  className="quiet"
                  onClick={() => remove.mutate(k.id)}
                  aria-label={`Delete key ${k.name || k.id}`}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
