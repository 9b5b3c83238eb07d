// One post: its text and status, its publication result (permalink, error), and its audit
// trail (every transition with who made it), in one request.
import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, useParams } from '@tanstack/react-router';
import { call, type Post } from '../api.ts';
import { useBrand } from '../brand.ts';
import { longDate } from '../time.ts';

type Audit = {
  id: string;
  action: string;
  from_status: string | null;
  to_status: string | null;
  actor: { kind: string; id: string | null };
  created_at: string;
};
type PostDetail = Post & {
  external_post_id: string | null;
  permalink_url: string | null;
  error: string | null;
};

export function PostPage() {
  const { postId } = useParams({ from: '/posts/$postId' });
  const { session, timeZone } = useBrand();
  const detail = useQuery({
    queryKey: ['post', postId],
    queryFn: () => call<{ post: PostDetail; audit: Audit[] }>('GET', `/app/api/posts/${postId}`),
    enabled: !!session.data,
  });
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
        {post.permalink_url && (
          <>
            <dt>On {post.platform}</dt>
            <dd>
              <a href={post.permalink_url} rel="noopener noreferrer" target="_blank">
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
