-- Issue 17, item 5: one memory document per brand (core/brandMemory/), versioned for
-- optimistic concurrency (PATCH /v1/brand-memory takes expected_version). `confidence` holds
-- each section's confidence (0-1) as its last writer judged it: a person's or an agent's
-- patch states a section (1), an import or the genome infers it (less).
create table brand_memory (
  brand_id bigint primary key references brands (id) on delete cascade,
  account_id bigint not null references accounts (id) on delete cascade,
  doc jsonb not null default '{}',
  confidence jsonb not null default '{}',
  version int not null default 1 check (version >= 1),
  updated_at timestamptz not null default now()
);

create index brand_memory_account_idx on brand_memory (account_id);
