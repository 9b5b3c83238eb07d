-- Issue 17, item 8: the brand genome is paid in credits, taken when its job is queued and
-- given back if it fails; the job row keeps what it took, so whoever fails it (its worker, or
-- the sweep of abandoned jobs) refunds exactly that, once.
alter table jobs add column credits int not null default 0 check (credits >= 0);

alter table jobs drop constraint jobs_kind_check;
alter table jobs add constraint jobs_kind_check
  check (kind in ('video_export', 'video_preview', 'generation', 'draft_week', 'history_import',
                  'genome'));
