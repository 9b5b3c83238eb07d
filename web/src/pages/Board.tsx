// The posts board: the selected brand's posts by status (draft, approved, rejected,
// scheduled, published, failed), one request for all of them; approve, and reject with a
// reason, where the post's actions (the service's rules, sent with it) allow it; favorite (a
// star) and unfavorite any post.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { asApiError, call, type PostStatus, type PostView } from '../api.ts';
import { useBrand } from '../brand.ts';
import { POST_KEYS, useBoard } from '../posts.ts';
import { longDate } from '../time.ts';

function PostCard({ post, timeZone }: { post: PostView; timeZone: string }) {
  const queries = useQueryClient();
  const [rejecting, setRejecting] = useState(false);
  const [error, setError] = useState<string>();
  const done = () => queries.invalidateQueries({ queryKey: POST_KEYS.board });
  const failed = (err: unknown) => setError(asApiError(err).message);
  const approve = useMutation({
    mutationFn: () => call('POST', `/app/api/posts/${post.id}/approve`),
    onSuccess: done,
    onError: failed,
  });
  const reject = useMutation({
    mutationFn: (reason: string) =>
      call('POST', `/app/api/posts/${post.id}/reject`, reason ? { reason } : {}),
    onSuccess: done,
    onError: failed,
  });
  const favorite = useMutation({
    mutationFn: () =>
      call(post.favorited_at ? 'DELETE' : 'POST', `/app/api/posts/${post.id}/favorite`),
    onSuccess: done,
    onError: failed,
  });
  const submitReject = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    reject.mutate(String(new FormData(e.currentTarget).get('reason') ?? '').trim());
  };
  return (
    <li className="post" aria-label={`${post.platform} post ${post.id}`}>
      <p className="meta">
        {post.platform} · {post.kind}
        {post.scheduled_for && <> · {longDate(post.scheduled_for, timeZone)}</>}
      </p>
      <p className="body">{post.body}</p>
      <p className="meta">
        <Link to="/posts/$postId" params={{ postId: post.id }}>
          Details and history
        </Link>
      </p>
      {post.rejection?.reason && <p className="meta">Rejected: {post.rejection.reason}</p>}
      <div className="actions">
        <button
          type="button"
          className="quiet"
          aria-pressed={!!post.favorited_at}
          onClick={() => favorite.mutate()}
          disabled={favorite.isPending}
        >
          <span aria-hidden="true">{post.favorited_at ? '★' : '☆'}</span> Favorite
        </button>
        {post.actions.includes('approve') && (
          <button type="button" onClick={() => approve.mutate()} disabled={approve.isPending}>
            Approve
          </button>
        )}
        {post.actions.includes('reject') && !rejecting && (
          <button type="button" className="quiet" onClick={() => setRejecting(true)}>
            Reject
          </button>
        )}
      </div>
      {rejecting && (
        <form onSubmit={submitReject} className="inline">
          <label htmlFor={`reason-${post.id}`}>Reason</label>
          <input id={`reason-${post.id}`} name="reason" maxLength={1000} />
          <button type="submit" disabled={reject.isPending}>
            Reject post
          </button>
        </form>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

export function Board() {
  const { session, timeZone } = useBrand();
  const board = useBoard();
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  // The columns come in the statuses' order from the service.
  const columns = board.data ? (Object.keys(board.data.columns) as PostStatus[]) : [];
  const empty = board.data && columns.every((c) => !board.data.columns[c].length);
  return (
    <section aria-labelledby="board-title">
      <h1 id="board-title">Posts</h1>
      {board.isPending && <p role="status">Loading…</p>}
      {board.isError && (
        <p className="error" role="alert">
          {(board.error as Error).message}
        </p>
      )}
      {empty && (
        <p className="empty">
          No posts yet. <Link to="/compose">Write one</Link>: drafts wait here for review.
        </p>
      )}
      <div className="board">
        {columns.map((status) => (
          <section key={status} className="column" aria-labelledby={`col-${status}`}>
            <h2 id={`col-${status}`}>
              {status} <span className="count">{board.data?.columns[status].length ?? 0}</span>
            </h2>
            <ul>
              {board.data?.columns[status].map((post) => (
                <PostCard key={post.id} post={post} timeZone={timeZone} />
              ))}
            </ul>
          </section>
        ))}
      </div>
    </section>
  );
}
