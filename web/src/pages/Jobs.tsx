// Jobs: the account's newest slow work (exports, generation, imports, replies) with live
// progress; the list is read again while any job is unfinished (web/src/jobs.ts says how often).
import { Navigate } from '@tanstack/react-router';
import { useBrand } from '../brand.ts';
import { LoadError } from '../components.tsx';
import { useJobs } from '../jobs.ts';
import { longDate } from '../time.ts';

export function Jobs() {
  const { session, timeZone } = useBrand();
  const jobs = useJobs();
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  return (
    <section aria-labelledby="jobs-title">
      <h1 id="jobs-title">Jobs</h1>
      <LoadError error={jobs.error} what="list of jobs" />
      {jobs.isSuccess && !jobs.data.jobs.length && (
        <p className="empty">
          No jobs yet: exporting a video, generating drafts or importing history starts one, and its
          progress shows here.
        </p>
      )}
      {!!jobs.data?.jobs.length && (
        <table className="list">
          <caption className="visually-hidden">Your newest jobs</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Kind</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Started</th>
              <th scope="col">Finished</th>
            </tr>
          </thead>
          <tbody>
            {jobs.data.jobs.map((j) => (
              <tr key={j.job_id}>
                <td>{j.job_id}</td>
                <td>{j.kind.replace('_', ' ')}</td>
                <td>
                  {j.status}
                  {j.stage && (j.status === 'running' || j.status === 'queued')
                    ? ` (${j.stage})`
                    : ''}
                  {j.error && <span className="error"> {j.error}</span>}
                </td>
                <td>
                  <progress
                    max={100}
                    value={Math.round(j.progress * 100)}
                    aria-label={`Job ${j.job_id} progress`}
                  />{' '}
                  {Math.round(j.progress * 100)}%
                </td>
                <td>{longDate(j.started_at ?? j.created_at, timeZone)}</td>
                <td>{j.finished_at ? longDate(j.finished_at, timeZone) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
