-- Chunked upload sessions (SPEC.md "Upload session"): parts are stored as they arrive and
-- joined at finish; sessions not finished in a day expire and are cleaned by a cron job.
create table upload_sessions (
  id uuid primary key default gen_random_uuid(),
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint references brands (id) on delete set null,
  filename text not null,
  size_bytes bigint not null check (size_bytes > 0),
  part_bytes int not null check (part_bytes > 0),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null default now() + interval '1 day'
);
create index upload_sessions_expiry_idx on upload_sessions (expires_at);

create table upload_parts (
  upload_id uuid not null references upload_sessions (id) on delete cascade,
  index int not null check (index >= 0),
  bytes int not null,
  received_at timestamptz not null default now(),
  primary key (upload_id, index)
);
