// One post: its text and status, its publication result (permalink, error), and its audit
// trail (every transition with who made it), in one request; a post not yet out can be
// scheduled (again) at a time in the brand's time zone or at the next free slot.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError, asApiError, call, type Post } from '../api.ts';
import { useBrand } from '../brand.ts';
import { webLink } from '../format.ts';
import { usePost } from '../posts.ts';
import { longDate, zonedToIso } from '../time.ts';

function ScheduleForm({ post, timeZone }: { post: Post; timeZone: string }) {
  const queries = useQueryClient();
  const [at, setAt] = useState('');
  const [error, setError] = useState<ApiError>();
  const schedule = useMutation({
    mutationFn: (when?: string) =>
      call<Post>('POST', `/app/api/posts/${post.id}/schedule`, when ? { when } : {}),
    onSuccess: () => {
      setError(undefined);
      return queries.invalidateQueries();
    },
    onError: (err) => setError(asApiError(err)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!at)
      return setError(
        new ApiError(422, { detail: [{ loc: ['when'], msg: 'choose a date and time' }] }),
      );
    schedule.mutate(zonedToIso(at, timeZone));
  };
  const fieldError = error?.fields.when;
  return (
    <form onSubmit={submit} className="card" noValidate>
      <h2>{post.status === 'scheduled' ? 'Move' : 'Schedule'}</h2>
      <label htmlFor="schedule-at">Date and time ({timeZone})</label>
      <input
        id="schedule-at"
        type="datetime-local"
        value={at}
        onChange={(e) => setAt(e.target.value)}
        aria-invalid={fieldError ? true : undefined}
        aria-describedby={fieldError ? 'schedule-at-error' : undefined}
      />
      {fieldError && (
        <p className="error" id="schedule-at-error">
          {fieldError}
        </p>
      )}
      {error && !fieldError && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={schedule.isPending}>
          Schedule at this time
        </button>
        <button
          type="button"
          className="quiet"
          disabled={schedule.isPending}
          onClick={() => {
            setError(undefined);
            schedule.mutate(undefined);
          }}
        >
          At the next free slot
        </button>
      </div>
    </form>
  );
}

export function PostPage() {
  const { postId } = useParams({ from: '/posts/$postId' });
  const { session, timeZone } = useBrand();
  const detail = usePost(postId);
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  if (detail.isError)
    return (
      <p className="error" role="alert">
        {(detail.error as Error).message} <Link to="/board">Back to the board</Link>
      </p>
    );
  if (!detail.data) return <p role="status">Loading…</p>;
  const { post, audit } = detail.data;
  return (
    <section aria-labelledby="post-title" className="card">
      <h1 id="post-title">
        {post.platform} post {post.id}
      </h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd>{post.status}</dd>
        <dt>Kind</dt>
        <dd>{post.kind}</dd>
        {post.scheduled_for && (
          <>
            <dt>Scheduled for</dt>
            <dd>{longDate(post.scheduled_for, timeZone)}</dd>
          </>
        )}
        {post.published_at && (
          <>
            <dt>Published</dt>
            <dd>{longDate(post.published_at, timeZone)}</dd>
          </>
        )}
        {webLink(post.permalink_url) && (
          <>
            <dt>On {post.platform}</dt>
            <dd>
              <a href={webLink(post.permalink_url)!} rel="noopener noreferrer" target="_blank">
                {post.permalink_url}
              </a>
            </dd>
          </>
        )}
        {post.error && (
          <>
            <dt>Error</dt>
            <dd className="error">{post.error}</dd>
          </>
        )}
      </dl>
      <h2>Text</h2>
      <p className="body">{post.body}</p>
      {post.actions.includes('schedule') && <ScheduleForm post={post} timeZone={timeZone} />}
      <table className="list">
        <caption>Audit trail (times in {timeZone})</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">Status</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          {audit.map((a) => (
            <tr key={a.id}>
              <td>{longDate(a.created_at, timeZone)}</td>
              <td>{a.action}</td>
              <td>
                {a.from_status || a.to_status
                  ? `${a.from_status ?? '–'} → ${a.to_status ?? '–'}`
                  : ''}
              </td>
              <td>
                {a.actor.kind}
                {a.actor.id ? ` ${a.actor.id}` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
