// Small pieces several pages share: a group of checkboxes with its legend and error, the
// notice a page shows when the account's plan is below what the page's feature needs, and a
// job's live progress.
import type { Plan } from '../../core/kernel/plans.ts';
import { ApiError } from './api.ts';
import { sameOriginPath } from './format.ts';
import { useJobs } from './jobs.ts';
import { useSession } from './session.ts';

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

/** What needs a plan (plus unless named), said on a lower plan's page with how to raise it. */
export function PlanNotice({
  plan,
  what,
  needs = 'plus',
}: {
  plan: Plan;
  what: string;
  needs?: Plan;
}) {
  // The plans in order, lowest first, as the session tells them.
  const plans = useSession().data?.plans ?? [];
  if (plans.indexOf(plan) >= plans.indexOf(needs)) return null;
  return (
    <p className="notice">
      {what} on the {needs} plan or higher; this account is on {plan}. The operator raises it:{' '}
      <code>npm run admin -- account plan --email … --plan {needs}</code>.
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
    <div className="job">
      <label htmlFor={`job-${job.job_id}`}>
        {label} {job.job_id}: {job.status}
        {job.stage ? ` (${job.stage})` : ''} {percent}%
      </label>
      <progress id={`job-${job.job_id}`} max={100} value={percent} />
      {/* Only the status is announced, not every step of the progress. */}
      <p className="visually-hidden" role="status">
        {label} {job.status}
      </p>
      {job.error && <p className="error">{job.error}</p>}
      {typeof job.result?.signed_url === 'string' && (
        <a href={sameOriginPath(job.result.signed_url)}>Download</a>
      )}
    </div>
  );
}

/** A page's data that did not load: not found, or why not, instead of an empty page. */
export function LoadError({ error, what }: { error: unknown; what: string }) {
  if (!error) return null;
  const message =
    error instanceof ApiError && error.status === 404
      ? `This ${what} was not found.`
      : `The ${what} could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}

/**
 * A failed save's message; after a 409 (saved elsewhere meanwhile), what was typed or drawn
 * is kept (`kept` says so) and a button loads the latest version to save on top of.
 */
export function SaveError({
  error,
  stale,
  kept,
  reload,
}: {
  error: string | undefined;
  stale: boolean;
  kept: string;
  reload: () => Promise<void>;
}) {
  if (!error) return null;
  return (
    <>
      <p className="error" role="alert">
        {error}
        {stale && ` ${kept} load the latest version, then save again.`}
      </p>
      {stale && (
        <button type="button" className="quiet" onClick={() => void reload()}>
          Load the latest version
        </button>
      )}
    </>
  );
}
