// Competitors: the profiles the selected brand tracks (at most 20), added with their breakout
// rule and removed. Tracking needs the plus plan: the page says so on a lower one.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError, call } from '../api.ts';
import { useBrand } from '../brand.ts';
import { COMPETITOR_KEYS, useCompetitors } from '../competitors.ts';
import { PlanNotice } from '../components.tsx';

export function Competitors() {
  const { session, brand } = useBrand();
  const queries = useQueryClient();
  const [platform, setPlatform] = useState('mastodon');
  const [error, setError] = useState<ApiError>();
  const list = useCompetitors(brand?.id);
  const add = useMutation({
    mutationFn: (handle: string) =>
      call('POST', '/app/api/competitors', { brand_id: brand!.id, platform, handle }),
    onSuccess: () => queries.invalidateQueries({ queryKey: COMPETITOR_KEYS.all }),
    onError: (err) => setError(err instanceof ApiError ? err : undefined),
  });
  const remove = useMutation({
    mutationFn: (id: string) => call('DELETE', `/app/api/competitors/${id}`),
    onSuccess: () => queries.invalidateQueries({ queryKey: COMPETITOR_KEYS.all }),
  });
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(undefined);
    add.mutate(String(new FormData(e.currentTarget).get('handle') ?? ''));
  };
  return (
    <section aria-labelledby="competitors-title">
      <h1 id="competitors-title">Competitors</h1>
      <PlanNotice plan={session.data.account.plan} what="Competitor tracking works" />
      <form onSubmit={submit} className="card" noValidate>
        <label htmlFor="competitor-platform">Platform</label>
        <select
          id="competitor-platform"
          value={platform}
          onChange={(e) => setPlatform(e.target.value)}
        >
          <option value="mastodon">Mastodon</option>
          <option value="bluesky">Bluesky</option>
        </select>
        <label htmlFor="handle">Handle</label>
        <input
          id="handle"
          name="handle"
          placeholder="name@instance.social"
          aria-invalid={!!error?.fields.handle}
        />
        {error?.fields.handle && <p className="error">{error.fields.handle}</p>}
        {error && !Object.keys(error.fields).length && (
          <p className="error" role="alert">
            {error.message}
          </p>
        )}
        <button type="submit" disabled={add.isPending}>
          Track
        </button>
      </form>
      {list.data && !list.data.length && (
        <p className="empty">
          No competitor tracked: add a profile, and a post of theirs that breaks out is sent to your
          webhooks.
        </p>
      )}
      <ul className="accounts">
        {list.data?.map((c) => (
          <li key={c.id} className="card">
            <strong>{c.platform}</strong> {c.handle}{' '}
            <span className="meta">
              breakout: {c.ratio}× its baseline and at least {c.floor}
            </span>{' '}
            <button
              type="button"
              className="quiet"
              onClick={() => remove.mutate(c.id)}
              aria-label={`Remove ${c.handle}`}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
