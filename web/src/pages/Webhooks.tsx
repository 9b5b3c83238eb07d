// Webhooks: create an endpoint for some events (its signing secret is shown once), the list,
// each endpoint's delivery log (status and timing of every attempt) with replay, and delete.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { ApiError, call } from '../api.ts';
import { useBrand } from '../brand.ts';
import { CheckboxGroup, PlanNotice } from '../components.tsx';
import { longDate } from '../time.ts';
import {
  useDeliveries,
  useWebhookEndpoints,
  WEBHOOK_KEYS,
  type WebhookCreated,
  type WebhookEndpoint,
} from '../webhooks.ts';

const EVENTS = ['post.published', 'post.failed', 'competitor.breakout'] as const;
function Deliveries({ endpoint, timeZone }: { endpoint: WebhookEndpoint; timeZone: string }) {
  const queries = useQueryClient();
  const log = useDeliveries(endpoint.id);
  const replay = useMutation({
    mutationFn: (delivery: string) =>
      call('POST', `/app/api/webhooks/${endpoint.id}/deliveries/${delivery}/replay`),
    onSuccess: () => queries.invalidateQueries({ queryKey: WEBHOOK_KEYS.deliveries(endpoint.id) }),
  });
  const refresh = (
    <button
      type="button"
      className="quiet"
      onClick={() => void log.refetch()}
      aria-label={`Refresh deliveries to ${endpoint.url}`}
    >
      Refresh
    </button>
  );
  if (!log.data?.length)
    return (
      <p className="empty">
        No deliveries yet: they appear when a subscribed event happens. {refresh}
      </p>
    );
  return (
    <>
      {refresh}
      <table className="list">
        <caption>Deliveries to {endpoint.url}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Attempt</th>
            <th scope="col">When</th>
            <th scope="col">Answer</th>
            <th scope="col">Time</th>
            <th scope="col">Delivery</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {log.data.map((a) => (
            <tr key={`${a.delivery_id}-${a.attempt}`}>
              <td>{a.event}</td>
              <td>{a.attempt}</td>
              <td>{longDate(a.attempted_at, timeZone)}</td>
              <td>{a.status_code ?? a.error ?? '–'}</td>
              <td>{a.duration_ms} ms</td>
              <td>{a.delivery_status}</td>
              <td>
                <button
                  type="button"
                  className="quiet"
                  onClick={() => replay.mutate(a.delivery_id)}
                  aria-label={`Replay delivery ${a.delivery_id}`}
                >
                  Replay
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function Webhooks() {
  const { session, timeZone } = useBrand();
  const queries = useQueryClient();
  const [events, setEvents] = useState<string[]>([...EVENTS]);
  // The secret shown once, with the endpoint it signs for.
  const [secret, setSecret] = useState<{ url: string; secret: string }>();
  const [error, setError] = useState<ApiError>();
  const endpoints = useWebhookEndpoints();
  const formRef = useRef<HTMLFormElement>(null);
  const create = useMutation({
    mutationFn: (url: string) => call<WebhookCreated>('POST', '/app/api/webhooks', { url, events }),
    onSuccess: (made) => {
      setSecret({ url: made.url, secret: made.secret });
      // The form is cleared: a second click does not make a second endpoint.
      formRef.current?.reset();
      void queries.invalidateQueries({ queryKey: WEBHOOK_KEYS.endpoints });
    },
    onError: (err) => setError(err instanceof ApiError ? err : undefined),
  });
  const remove = useMutation({
    mutationFn: (id: string) => call('DELETE', `/app/api/webhooks/${id}`),
    onSuccess: () => queries.invalidateQueries({ queryKey: WEBHOOK_KEYS.endpoints }),
  });
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(undefined);
    setSecret(undefined);
    create.mutate(String(new FormData(e.currentTarget).get('url') ?? ''));
  };
  const plan = session.data.account.plan;
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <PlanNotice plan={plan} what="Webhook endpoints work" />
      <form ref={formRef} onSubmit={submit} className="card" noValidate>
        <label htmlFor="hook-url">Receiver URL</label>
        <input id="hook-url" name="url" type="url" aria-invalid={!!error?.fields.url} />
        {error?.fields.url && <p className="error">{error.fields.url}</p>}
        <CheckboxGroup legend="Events" options={EVENTS} value={events} onChange={setEvents} />
        {error && !Object.keys(error.fields).length && (
          <p className="error" role="alert">
            {error.message}
          </p>
        )}
        <button type="submit" disabled={create.isPending}>
          Create endpoint
        </button>
      </form>
      {secret && (
        <div className="card secret" role="status">
          <p>
            The signing secret of <strong>{secret.url}</strong>. Copy it now: it is not shown again.
          </p>
          <code data-testid="new-secret">{secret.secret}</code>
        </div>
      )}
      {endpoints.data && !endpoints.data.length && (
        <p className="empty">No endpoints yet: add a receiver above.</p>
      )}
      {endpoints.data?.map((ep) => (
        <article key={ep.id} className="card" aria-label={`Endpoint ${ep.url}`}>
          <h2>{ep.url}</h2>
          <p className="meta">{ep.events.join(', ')}</p>
          <button
            type="button"
            className="quiet"
            onClick={() => remove.mutate(ep.id)}
            aria-label={`Delete endpoint ${ep.url}`}
          >
            Delete
          </button>
          <Deliveries endpoint={ep} timeZone={timeZone} />
        </article>
      ))}
    </section>
  );
}
