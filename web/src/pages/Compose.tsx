// The composer: one text for one or more platforms, each platform's length counted its way
// (the service counts: /app/api/measure), saved as drafts, scheduled at a time in the brand's
// time zone, or at each platform's next free slot. A 422 is shown beside the field it names;
// nothing typed is lost on a failed save.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { useConnectedAccounts } from '../accounts.ts';
import { ApiError, asApiError, call, type Post } from '../api.ts';
import { useAttachableAssets } from '../assets.ts';
import { useBrand } from '../brand.ts';
import { CheckboxGroup } from '../components.tsx';
import { raiseNotices } from '../notices.ts';
import { useTextLengths } from '../posts.ts';
import { dayKey, zonedToIso } from '../time.ts';

type When = 'draft' | 'at' | 'slot';

/** The fields the form says a refusal beside (the media's are isMediaField's). */
const PLACED_FIELDS = ['platforms', 'platform', 'body', 'schedule_at'];
const isMediaField = (name: string) =>
  name === 'asset_ids' || name === 'kind' || /^\d+$/.test(name);

export function Compose() {
  const { session, brand, timeZone } = useBrand();
  const [platforms, setPlatforms] = useState<string[]>(['bluesky', 'mastodon']);
  const [body, setBody] = useState('');
  const [when, setWhen] = useState<When>('draft');
  const [at, setAt] = useState('');
  const [error, setError] = useState<ApiError>();
  const [assetIds, setAssetIds] = useState<string[]>([]);
  const lengths = useTextLengths(body);
  // Platforms with no working account: a post scheduled there fails when it is due.
  const accounts = useConnectedAccounts(brand?.id);
  const unconnected = accounts.data
    ? platforms.filter((p) => !accounts.data.some((a) => a.platform === p && a.status === 'active'))
    : [];
  const library = useAttachableAssets(brand?.id);
  const queries = useQueryClient();
  const navigate = useNavigate();

  // One request: the service checks every platform before it makes any post.
  const save = useMutation({
    mutationFn: () =>
      call<{ posts: Post[]; warnings: string[] }>('POST', '/app/api/compose', {
        platforms,
        body,
        ...(assetIds.length ? { asset_ids: assetIds } : {}),
        brand_id: brand?.id,
        when: when === 'slot' ? 'next_free_slot' : when,
        ...(when === 'at' && at ? { schedule_at: zonedToIso(at, timeZone) } : {}),
      }),
    onSuccess: async ({ posts, warnings }) => {
      // Saved, but some will fail unless their platform is connected: said on the next page.
      raiseNotices(warnings);
      await queries.invalidateQueries();
      const first = posts.find((p) => p.scheduled_for)?.scheduled_for;
      // The calendar opens on the week the post went to, not this week.
      if (first) await navigate({ to: '/calendar', search: { week: dayKey(first, timeZone) } });
      else await navigate({ to: '/board' });
    },
    onError: (err) => setError(asApiError(err)),
  });

  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    if (!platforms.length)
      return setError(
        new ApiError(422, { detail: [{ loc: ['platform'], msg: 'choose at least one platform' }] }),
      );
    if (when === 'at' && !at)
      return setError(
        new ApiError(422, { detail: [{ loc: ['schedule_at'], msg: 'choose a date and time' }] }),
      );
    save.mutate();
  };
  const field = (name: string) => error?.fields[name];
  // The kind is inferred from the media, and an attachment's refusal names it by its index:
  // both are said beside the media.
  const refusals = Object.entries(error?.fields ?? {});
  const mediaErrors = refusals.filter(([k]) => isMediaField(k)).map(([, msg]) => msg);
  const otherErrors = refusals
    .filter(([k]) => !isMediaField(k) && !PLACED_FIELDS.includes(k))
    .map(([, msg]) => msg);
  return (
    <section aria-labelledby="compose-title" className="card">
      <h1 id="compose-title">Compose</h1>
      <form onSubmit={submit} noValidate>
        <CheckboxGroup
          legend="Platforms"
          options={session.data.platforms}
          value={platforms}
          onChange={setPlatforms}
          error={field('platforms') ?? field('platform')}
        />
        {unconnected.length > 0 && (
          <p className="notice">
            No working account on {unconnected.join(', ')} for this brand: a post scheduled there
            fails when it is due. <Link to="/settings/accounts">Connect one</Link>, or save a draft.
          </p>
        )}
        <label htmlFor="body">Text</label>
        <textarea
          id="body"
          rows={6}
          value={body}
          onChange={(e) => setBody(e.target.value)}
          aria-invalid={!!field('body')}
          aria-describedby="counters"
        />
        {field('body') && <p className="error">{field('body')}</p>}
        <ul id="counters" className="counters" aria-live="polite">
          {platforms.map((p) => {
            const l = lengths.data?.[p];
            if (!l) return null;
            const over = l.length > l.max;
            return (
              <li key={p} className={over ? 'over' : ''}>
                {p}: {l.length}/{l.max} {l.unit}
                {over ? ' (too long)' : ''}
              </li>
            );
          })}
        </ul>
        <fieldset>
          <legend>Media from the library</legend>
          {library.data && !library.data.length && (
            <p className="hint">
              Nothing to attach yet: <Link to="/media">upload an image or a video</Link>.
            </p>
          )}
          <div className="choices">
            {library.data?.map((a) => (
              <label key={a.id} className="choice attach">
                <input
                  type="checkbox"
                  checked={assetIds.includes(a.id)}
                  onChange={(e) =>
                    setAssetIds(
                      e.target.checked ? [...assetIds, a.id] : assetIds.filter((x) => x !== a.id),
                    )
                  }
                />
                <img src={`/app/api/assets/${a.id}/thumbnail`} alt="" />
                {a.filename ?? `${a.kind} ${a.id}`}
              </label>
            ))}
          </div>
          {mediaErrors.map((msg) => (
            <p key={msg} className="error">
              {msg}
            </p>
          ))}
        </fieldset>
        <fieldset>
          <legend>When</legend>
          <div className="choices">
            {(
              [
                ['draft', 'Save as draft'],
                ['at', 'Schedule at'],
                ['slot', 'Next free slot'],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="choice">
                <input
                  type="radio"
                  name="when"
                  checked={when === value}
                  onChange={() => setWhen(value)}
                />
                {label}
              </label>
            ))}
          </div>
          {when === 'at' && (
            <>
              <label htmlFor="schedule-at">Date and time ({timeZone})</label>
              <input
                id="schedule-at"
                type="datetime-local"
                value={at}
                onChange={(e) => setAt(e.target.value)}
                aria-invalid={!!field('schedule_at')}
              />
            </>
          )}
          {field('schedule_at') && <p className="error">{field('schedule_at')}</p>}
        </fieldset>
        {error && !refusals.length && (
          <p className="error" role="alert">
            {error.message}
          </p>
        )}
        {otherErrors.length > 0 && (
          <div role="alert">
            {otherErrors.map((msg) => (
              <p key={msg} className="error">
                {msg}
              </p>
            ))}
          </div>
        )}
        <button type="submit" disabled={save.isPending}>
          {when === 'draft' ? 'Save draft' : 'Schedule'}
        </button>
      </form>
    </section>
  );
}
