-- Issue 16, item 1. User-visible slow work (a video export now; generation batches, the brand
-- genome, history import and agent tasks later) as one record a client polls (MCP job_status).
-- A row and its Graphile Worker job are added in one transaction, the job keyed by the row's
-- id; workers move the row through its statuses and notify `job_changed` with its id.
create table jobs (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  kind text not null check (kind in ('video_export')),
  -- What the job works on (an export: the design and its layout version): asking again for
  -- the same subject while a job for it is not failed answers that job.
  subject text not null check (char_length(subject) between 1 and 200),
  status text not null default 'queued'
    check (status in ('queued', 'running', 'succeeded', 'failed')),
  progress real not null default 0 check (progress >= 0 and progress <= 1),
  stage text check (char_length(stage) between 1 and 40),
  result jsonb,
  error text check (char_length(error) <= 2000),
  attempts int not null default 0 check (attempts >= 0),
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz not null default now(),
  check ((status in ('succeeded', 'failed')) = (finished_at is not null)),
  check (status <> 'succeeded' or result is not null),
  check (status <> 'failed' or error is not null)
);

create index jobs_account_idx on jobs (account_id, created_at desc);
create unique index jobs_live_subject_idx on jobs (account_id, kind, subject)
  where status <> 'failed';
-- The scan for abandoned jobs: unfinished jobs only.
create index jobs_unfinished_idx on jobs (updated_at) where status in ('queued', 'running');

-- Every change wakes the job_status calls waiting on it (core/jobs/waits.ts), whoever made it:
-- a worker, the cron that ends abandoned jobs, a test. Delivered at commit, so a waiter reads committed state.
create function jobs_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('job_changed', new.id::text);
  return null;
end $$;
create trigger jobs_changed after insert or update on jobs
  for each row execute function jobs_notify();
