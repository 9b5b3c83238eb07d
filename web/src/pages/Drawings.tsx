// Drawings: the selected brand's drawings (a page at a time) and a form to start one; the
// drawing itself is drawn on its own page (DrawingPage.tsx).
import { useMutation } from '@tanstack/react-query';
import { Link, Navigate, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError, call } from '../api.ts';
import { useBrand } from '../brand.ts';
import { LoadError } from '../components.tsx';
import { useDrawingPages } from '../drawings.ts';
import { longDate } from '../time.ts';

export function Drawings() {
  const { session, brand, timeZone } = useBrand();
  const navigate = useNavigate();
  const [error, setError] = useState<ApiError>();
  const list = useDrawingPages(brand?.id);
  const drawings = list.data?.pages.flatMap((p) => p.drawings) ?? [];
  const create = useMutation({
    mutationFn: (d: { title: string; width: number; height: number }) =>
      call<{ id: string }>('POST', '/app/api/drawings', {
        ...d,
        background: '#ffffff',
        brand_id: brand?.id,
      }),
    onSuccess: (made) => navigate({ to: '/drawings/$drawingId', params: { drawingId: made.id } }),
    onError: (err) => setError(err instanceof ApiError ? err : undefined),
  });
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(undefined);
    const f = new FormData(e.currentTarget);
    create.mutate({
      title: String(f.get('title') ?? ''),
      width: Number(f.get('width')),
      height: Number(f.get('height')),
    });
  };
  const field = (name: string) => error?.fields[name];
  return (
    <section aria-labelledby="drawings-title">
      <h1 id="drawings-title">Drawings</h1>
      <form onSubmit={submit} className="card inline" noValidate>
        {(['title', 'width', 'height'] as const).map((name) => (
          <div key={name} className="field">
            <label htmlFor={`drawing-${name}`}>{name[0]!.toUpperCase() + name.slice(1)}</label>
            <input
              id={`drawing-${name}`}
              name={name}
              type={name === 'title' ? 'text' : 'number'}
              defaultValue={name === 'title' ? '' : name === 'width' ? 1080 : 1080}
              aria-invalid={field(name) ? true : undefined}
              aria-describedby={field(name) ? `drawing-${name}-error` : undefined}
            />
            {field(name) && (
              <p className="error" id={`drawing-${name}-error`}>
                {field(name)}
              </p>
            )}
          </div>
        ))}
        <button type="submit" disabled={create.isPending}>
          New drawing
        </button>
        {error && !Object.keys(error.fields).length && (
          <p className="error" role="alert">
            {error.message}
          </p>
        )}
      </form>
      <LoadError error={list.error} what="list of drawings" />
      {list.isSuccess && !drawings.length && (
        <p className="empty">
          No drawings yet: give one a title above and draw with a mouse or a pen.
        </p>
      )}
      <ul className="list-plain" aria-label="Drawings">
        {drawings.map((d) => (
          <li key={d.id}>
            <Link to="/drawings/$drawingId" params={{ drawingId: d.id }}>
              {d.title}
            </Link>{' '}
            · {d.width}×{d.height} · {d.stroke_count} stroke(s) · {longDate(d.updated_at, timeZone)}
          </li>
        ))}
      </ul>
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()}>
          More drawings
        </button>
      )}
    </section>
  );
}
