// The calendar: a week (or a month) of the brand's scheduled and published posts, by day in
// the brand's time zone, in one request. A scheduled post is dragged to another day to move
// it there at the same time of day (or moved a day with its buttons, from the keyboard).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, useSearch } from '@tanstack/react-router';
import { type DragEvent, useState } from 'react';
import { asApiError, call, type Post } from '../api.ts';
import { useBrand } from '../brand.ts';
import { POST_KEYS, useCalendar } from '../posts.ts';
import { addDays, dayKey, mondayOf, moveDays, timeOfDay } from '../time.ts';

type View = 'week' | 'month';

export function Calendar() {
  const { session, brand, timeZone } = useBrand();
  const [view, setView] = useState<View>('week');
  const [start, setStart] = useState<string>();
  // The week asked for (the composer sends the week of the post it scheduled), else the week
  // of today in the brand's time zone, once the session says which zone that is.
  const { week } = useSearch({ from: '/calendar' });
  const shown = start ?? mondayOf(week ?? dayKey(new Date(), timeZone));
  const [error, setError] = useState<string>();
  const days = view === 'week' ? 7 : 35;
  const dayList = Array.from({ length: days }, (_, i) => addDays(shown, i));
  // A day either side: the brand's days are not UTC's.
  const from = `${addDays(shown, -1)}T00:00:00Z`;
  const to = `${addDays(shown, days + 1)}T00:00:00Z`;
  const queries = useQueryClient();
  const posts = useCalendar(brand?.id, from, to);
  const move = useMutation({
    mutationFn: ({ post, days: by }: { post: Post; days: number }) =>
      call('POST', `/app/api/posts/${post.id}/schedule`, {
        when: moveDays(post.scheduled_for!, by, timeZone),
      }),
    onSuccess: () => {
      setError(undefined);
      return queries.invalidateQueries({ queryKey: POST_KEYS.calendar });
    },
    onError: (err) => setError(asApiError(err).message),
  });

  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  const when = (p: Post) => p.published_at ?? p.scheduled_for!;
  const byDay = new Map<string, Post[]>();
  for (const p of posts.data?.posts ?? []) {
    const key = dayKey(when(p), timeZone);
    byDay.set(key, [...(byDay.get(key) ?? []), p]);
  }
  // The request takes a day either side; only the days shown count for "nothing here".
  const nothingShown = dayList.every((day) => !byDay.get(day)?.length);
  const drop = (day: string) => (e: DragEvent) => {
    e.preventDefault();
    const id = e.dataTransfer.getData('text/post-id');
    const post = posts.data?.posts.find((p) => p.id === id);
    if (!post?.scheduled_for) return;
    const by = Math.round(
      (Date.parse(`${day}T00:00:00Z`) -
        Date.parse(`${dayKey(post.scheduled_for, timeZone)}T00:00:00Z`)) /
        86_400_000,
    );
    if (by) move.mutate({ post, days: by });
  };
  const today = dayKey(new Date(), timeZone);
  return (
    <section aria-labelledby="calendar-title">
      <div className="toolbar">
        <h1 id="calendar-title">Calendar</h1>
        <div className="actions">
          <button type="button" className="quiet" onClick={() => setStart(addDays(shown, -days))}>
            Previous
          </button>
          <button type="button" className="quiet" onClick={() => setStart(mondayOf(today))}>
            Today
          </button>
          <button type="button" className="quiet" onClick={() => setStart(addDays(shown, days))}>
            Next
          </button>
          <button
            type="button"
            className="quiet"
            aria-pressed={view === 'month'}
            onClick={() => setView(view === 'week' ? 'month' : 'week')}
          >
            {view === 'week' ? 'Month view' : 'Week view'}
          </button>
        </div>
      </div>
      <p className="meta">Times in {timeZone}.</p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {posts.isError && (
        <p className="error" role="alert">
          {(posts.error as Error).message}
        </p>
      )}
      {posts.data && nothingShown && (
        <p className="empty">
          Nothing scheduled here. <Link to="/compose">Compose a post</Link> and schedule it.
        </p>
      )}
      <ol className={`calendar ${view}`}>
        {dayList.map((day) => (
          <li
            key={day}
            className={`day${day === today ? ' today' : ''}`}
            onDragOver={(e) => e.preventDefault()}
            onDrop={drop(day)}
            data-day={day}
            aria-label={day}
          >
            <h2>
              {new Intl.DateTimeFormat('en-GB', {
                weekday: 'short',
                day: 'numeric',
                month: 'short',
                timeZone: 'UTC',
              }).format(new Date(`${day}T00:00:00Z`))}
            </h2>
            <ul>
              {(byDay.get(day) ?? []).map((p) => (
                <li
                  key={p.id}
                  className={`event ${p.status}`}
                  draggable={p.status === 'scheduled'}
                  onDragStart={(e) => e.dataTransfer.setData('text/post-id', p.id)}
                  aria-label={`${p.platform} post ${p.id}, ${p.status}`}
                >
                  <span className="meta">
                    {timeOfDay(when(p), timeZone)} · {p.platform} · {p.status}
                  </span>
                  <span className="body">{p.body}</span>
                  {p.status === 'scheduled' && (
                    <span className="actions">
                      <button
                        type="button"
                        className="quiet small"
                        aria-label={`Move post ${p.id} a day earlier`}
                        onClick={() => move.mutate({ post: p, days: -1 })}
                      >
                        ←
                      </button>
                      <button
                        type="button"
                        className="quiet small"
                        aria-label={`Move post ${p.id} a day later`}
                        onClick={() => move.mutate({ post: p, days: 1 })}
                      >
                        →
                      </button>
                    </span>
                  )}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </section>
  );
}
