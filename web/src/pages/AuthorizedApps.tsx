// Apps signed in by OAuth (MCP clients): each with its scopes, brand and last use, and
// revoke (its tokens stop working on the very next request).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate } from '@tanstack/react-router';
import { call } from '../api.ts';
import { useBrand } from '../brand.ts';
import { LoadError } from '../components.tsx';
import { OAUTH_KEYS, useAuthorizedApps } from '../oauth.ts';
import { longDate } from '../time.ts';

export function AuthorizedApps() {
  const { session, timeZone } = useBrand();
  const queries = useQueryClient();
  const apps = useAuthorizedApps();
  const revoke = useMutation({
    mutationFn: (grantId: string) => call('DELETE', `/app/api/oauth/clients/${grantId}`),
    onSuccess: () => queries.invalidateQueries({ queryKey: OAUTH_KEYS.clients }),
  });
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  const brandName = (id: string | null) =>
    session.data?.brands.find((b) => b.id === id)?.name ?? '—';
  return (
    <section aria-labelledby="apps-title">
      <h1 id="apps-title">Authorized apps</h1>
      <p className="hint">
        MCP clients (Claude, ChatGPT, VS Code, the MCP Inspector) sign in here by OAuth when you
        give them this service's address followed by /mcp; what you allowed them is listed below.
      </p>
      <LoadError error={apps.error} what="list of apps" />
      {apps.data && !apps.data.length && (
        <p className="empty">No app signed in yet: add this service's /mcp address to one.</p>
      )}
      {!!apps.data?.length && (
        <table className="list">
          <caption className="visually-hidden">Apps you allowed</caption>
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">Scopes</th>
              <th scope="col">Brand</th>
              <th scope="col">Allowed</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {apps.data.map((a) => (
              <tr key={a.grant_id}>
                <td>{a.client_name ?? a.client_id}</td>
                <td>{a.scopes.join(', ')}</td>
                <td>{brandName(a.brand_id)}</td>
                <td>{longDate(a.created_at, timeZone)}</td>
                <td>{a.last_used_at ? longDate(a.last_used_at, timeZone) : 'never'}</td>
                <td>
                  <button
                    type="button"
                    className="quiet"
                    disabled={revoke.isPending}
                    onClick={() => {
                      if (
                        window.confirm(
                          `Revoke ${a.client_name ?? a.client_id}? It signs in again to come back.`,
                        )
                      )
                        revoke.mutate(a.grant_id);
                    }}
                    aria-label={`Revoke ${a.client_name ?? a.client_id}`}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
