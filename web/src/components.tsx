// Small pieces several pages share: a group of checkboxes with its legend and error, the
// notice a page shows when the account's plan is below what the page's feature needs, and a
// job's live progress.
import { useJobs } from './jobs.ts';

/** An address of ours as a path: signed addresses name PUBLIC_BASE_URL, the page its origin. */
export const sameOriginPath = (url: string) => {
  const u = new URL(url, window.location.origin);
  return `${u.pathname}${u.search}`;
};

export function CheckboxGroup({
  legend,
  options,
  value,
  onChange,
  error,
}: {
  legend: string;
  options: readonly string[];
  value: string[];
  onChange: (next: string[]) => void;
  error?: string;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      <div className="choices">
        {options.map((o) => (
          <label key={o} className="choice">
            <input
              type="checkbox"
              checked={value.includes(o)}
              onChange={(e) =>
                onChange(e.target.checked ? [...value, o] : value.filter((x) => x !== o))
              }
            />
            {o}
          </label>
        ))}
      </div>
      {error && <p className="error">{error}</p>}
    </fieldset>
  );
}

/** What needs the plus plan, said on a free account's page with how the operator raises it. */
export function PlanNotice({ plan, what }: { plan: string; what: string }) {
  if (plan !== 'free') return null;
  return (
    <p className="notice">
      {what} on the plus plan or higher; this account is on {plan}. The operator raises it:{' '}
      <code>npm run admin -- account plan --email … --plan plus</code>.
    </p>
  );
}

/** A job's progress bar and outcome, live (the shared jobs query polls while it runs). */
export function JobProgress({ jobId, label }: { jobId: string; label: string }) {
  const jobs = useJobs();
  const job = jobs.data?.jobs.find((j) => j.job_id === jobId);
  if (!job) return <p role="status">{label}: queued…</p>;
  const percent = Math.round(job.progress * 100);
  return (
    <div role="status" className="job">
      <label htmlFor={`job-${job.job_id}`}>
        {label} {job.job_id}: {job.status}
        {job.stage ? ` (${job.stage})` : ''} {percent}%
      </label>
      <progress id={`job-${job.job_id}`} max={100} value={percent} />
      {job.error && <p className="error">{job.error}</p>}
      {typeof job.result?.signed_url === 'string' && (
        <a href={sameOriginPath(job.result.signed_url)}>Download</a>
      )}
    </div>
  );
}
